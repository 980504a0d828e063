import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const PACKAGES = fileURLToPath(new URL("../../", import.meta.url));
const ARCHITECTURE = readFileSync(new URL("../../../docs/architecture.md", import.meta.url), "utf8");

// Each workspace package's entries, as tests and tsx resolve them: its `sdwan-source` export condition.
const sourceEntries = new Map<string, string>(
  readdirSync(PACKAGES).flatMap((folder) => {
    const manifest = join(PACKAGES, folder, "package.json");
    if (!existsSync(manifest)) return [];
    const { name, exports = {} } = JSON.parse(readFileSync(manifest, "utf8")) as {
      name: string;
      exports?: Record<string, { "sdwan-source"?: string }>;
    };
    return Object.entries(exports).flatMap(([subpath, conditions]) =>
      conditions["sdwan-source"] === undefined
        ? []
        : [[join(name, subpath), join(PACKAGES, folder, conditions["sdwan-source"])] as const],
    );
  }),
);

// The file a static import names: a relative `.js` is its `.ts` source, a workspace package its source entry; others (npm, node:) are not ours.
const resolveImport = (from: string, specifier: string): string | undefined => {
  if (specifier.startsWith(".")) return resolve(dirname(from), specifier).replace(/\.js$/, ".ts");
  return sourceEntries.get(specifier);
};

// Every file reached from `root` by static imports and re-exports (`import … from`, `export … from`, `import "…"`), type imports included.
const reachedFrom = (root: string): Set<string> => {
  const reached = new Set<string>();
  const pending = [root];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (reached.has(file) || !existsSync(file)) continue;
    reached.add(file);
    const source = readFileSync(file, "utf8");
    for (const [, specifier] of source.matchAll(/^\s*(?:import|export)\s(?:[^;"]*?\sfrom\s)?\s*"([^"]+)"/gm)) {
      const target = resolveImport(file, specifier as string);
      if (target !== undefined) pending.push(target);
    }
  }
  return reached;
};

// The numbered steps of docs/architecture.md's "One request's path" section, each opening with a source file (under packages/).
const section = ARCHITECTURE.split(/^## /m).find((part) => part.startsWith("One request's path")) ?? "";
const listed = [...section.matchAll(/^\d+\. `([\w./-]+\.ts)`/gm)].map((match) => match[1] as string);
const storeEntry = /reached by imports from the store's entry, `([\w./-]+\.ts)`/.exec(section)?.[1];

describe("docs/architecture.md's request path (update a connection)", () => {
  it("names its files, as many as it says, the route first", () => {
    expect(listed[0]).toMatch(/^http-express\/src\/routes\//);
    expect(section).toContain(`**${listed.length} files**`);
  });

  it("names only files reached by static imports from the route, or, past the repository port, from the store's entry", () => {
    expect(storeEntry).toBeDefined();
    const reached = new Set([
      ...reachedFrom(join(PACKAGES, listed[0] as string)),
      ...reachedFrom(join(PACKAGES, storeEntry as string)),
    ]);
    expect(listed.filter((file) => !reached.has(join(PACKAGES, file)))).toEqual([]);
  });
});
