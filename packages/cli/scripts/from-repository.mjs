/**
 * `pnpm -s cli …`: the CLI's bundle, rebuilt first only when a source it is made of changed since it was
 * built. Plain JavaScript and no turbo when nothing changed: the command starts as the installed one does,
 * and prints nothing of its own. The bundle is made from the workspace packages' sources (esbuild's
 * `sdwan-source` condition), so rebuilding it needs no other package's build.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath, URL } from "node:url";

const PACKAGES = fileURLToPath(new URL("../..", import.meta.url));
const CLI = join(PACKAGES, "cli");
const MAIN = join(CLI, "dist/pack/lib/main.js");
// What turbo.json's build task reads of a package, and the lockfile (a dependency's version).
const INPUTS = ["src", "testing", "contract", "scripts", "package.json", "tsconfig.json", "tsconfig.build.json"];

// The CLI's directory and those of the workspace packages it depends on at run time, transitively.
const packageDirs = (dir, seen = new Set()) => {
  if (seen.has(dir)) return seen;
  seen.add(dir);
  const { dependencies = {} } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  for (const name of Object.keys(dependencies))
    if (name.startsWith("@sdwan-connections/"))
      packageDirs(join(PACKAGES, name.slice("@sdwan-connections/".length)), seen);
  return seen;
};

// The newest modification time under `path` (0 when it does not exist).
const newest = (path) => {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(join(path, entry))), stats.mtimeMs);
};

const built = newest(MAIN);
const changed =
  built === 0 ||
  newest(join(PACKAGES, "../pnpm-lock.yaml")) > built ||
  [...packageDirs(CLI)].some((dir) => INPUTS.some((input) => newest(join(dir, input)) > built));
if (changed) {
  process.stderr.write("sdwan-connections: building the CLI (its sources changed since the last build)\n");
  const bundled = spawnSync(process.execPath, ["--conditions=sdwan-source", "--import", "tsx", "scripts/bundle.ts"], {
    cwd: CLI,
    stdio: ["ignore", process.stderr, process.stderr],
  });
  if (bundled.status !== 0) process.exit(bundled.status ?? 1);
}
await import(MAIN);
