import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const ARCHITECTURE = readFileSync(`${ROOT}docs/architecture.md`, "utf8");

// The rows of docs/architecture.md's "Where to change what" table: [what to add, the cell naming the files].
const ROWS = (ARCHITECTURE.split("## Where to change what")[1]?.split("\n## ")[0] ?? "")
  .split("\n")
  .filter((line) => line.startsWith("| ") && !line.startsWith("| To add"))
  .map((line) => line.split(" | ").map((cell) => cell.replace(/^\| | \|$/g, "")) as [string, string]);

/**
 * Where each backticked path of a cell is, from the repository's root: `docs/…` as it is, any other under
 * `packages/`, and `test/…` or `src/…` in the package the cell named last before it. A template
 * (`core/src/use-cases/<verb-noun>.ts`) stands for its folder. Names without a slash are not paths.
 */
const pathsOf = (cell: string): string[] => {
  let pkg: string | undefined;
  return [...cell.matchAll(/`([^`]+)`/g)].flatMap(([, token = ""]) => {
    if (!token.includes("/") || token.includes(" ")) return [];
    const path = token.includes("<") ? token.slice(0, token.lastIndexOf("/", token.indexOf("<")) + 1) : token;
    if (path.startsWith("docs/")) return [path];
    if (path.startsWith("test/") || path.startsWith("src/"))
      return [`packages/${pkg ?? "(no package named before)"}/${path}`];
    pkg = path.split("/")[0];
    return [`packages/${path}`];
  });
};

describe('docs/architecture.md\'s "Where to change what"', () => {
  it("has the rows people need, an orchestrator call among them", () => {
    expect(ROWS.map(([what]) => what)).toEqual(
      expect.arrayContaining(["A connection field", "An orchestrator call", "A store"]),
    );
  });

  it.each(ROWS)("%s: every file it names exists", (_, files) => {
    const paths = pathsOf(files);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((path) => !existsSync(`${ROOT}${path}`))).toEqual([]);
  });
});
