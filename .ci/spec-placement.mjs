// The one rule for where a spec lives (docs/architecture.md, "Tests"), checked by `pnpm lint`:
// - a unit spec of one module sits beside it (src/x.spec.ts tests src/x.ts);
// - test/ holds the integration specs (*.int.spec.ts: real servers, processes, files, containers) and the unit
//   specs of the package as a whole (its bundle, manifests, OpenAPI document, README), named after no module.
import { execFileSync } from "node:child_process";
import { basename } from "node:path";

const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "packages"], {
  encoding: "utf8",
}).split("\n");
const modules = new Map(); // package → base names of its src modules
for (const file of files) {
  const match = /^(packages\/[^/]+)\/src\/(?:.*\/)?([^/]+)\.tsx?$/.exec(file);
  if (match && !file.includes(".spec.")) modules.set(match[1], (modules.get(match[1]) ?? new Set()).add(match[2]));
}
const misplaced = files.flatMap((file) => {
  const match = /^(packages\/[^/]+)\/([^/]+)\/.*\.spec\.ts$/.exec(file);
  if (!match) return [];
  const [, pkg, folder] = match;
  if (file.endsWith(".int.spec.ts"))
    return folder === "test" ? [] : [`${file}: an integration spec belongs in ${pkg}/test/`];
  const name = basename(file, ".spec.ts");
  return folder === "test" && modules.get(pkg)?.has(name)
    ? [`${file}: the spec of the module ${name} belongs beside it in ${pkg}/src/`]
    : [];
});
for (const line of misplaced) console.error(line);
process.exit(misplaced.length === 0 ? 0 : 1);
