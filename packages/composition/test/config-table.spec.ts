import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const SECTION =
  readFileSync(`${ROOT}docs/interface.md`, "utf8")
    .split(/^## 6\. /m)[1]
    ?.split(/^## 7\. /m)[0] ?? "";
const SOURCES = readdirSync(`${ROOT}packages/composition/src`)
  .filter((name) => name.endsWith(".ts") && !name.includes(".spec."))
  .map((name) => readFileSync(`${ROOT}packages/composition/src/${name}`, "utf8"))
  .join("\n");

/** The variables the configuration reads (the only reader of the environment), by name. */
const read = [...new Set([...SOURCES.matchAll(/"(SDWAN_[A-Z0-9_]*[A-Z0-9])"/g)].map(([, name]) => name ?? ""))];
/** The variables the table's first column names. */
const tabled = [
  ...new Set(
    SECTION.split("\n")
      .filter((line) => line.startsWith("| `SDWAN_"))
      .flatMap((line) =>
        [...(line.split(" | ")[0] ?? "").matchAll(/`(SDWAN_[A-Z0-9_]*[A-Z0-9])`/g)].map(([, name]) => name ?? ""),
      ),
  ),
];

describe("docs/interface.md §6's configuration table", () => {
  it("names every variable the configuration reads, and only those", () => {
    expect(read.length).toBeGreaterThan(40);
    expect(read.filter((name) => !tabled.includes(name))).toEqual([]);
    expect(tabled.filter((name) => !read.includes(name))).toEqual([]);
  });
});

describe("the root README's links to the configuration table", () => {
  const readme = readFileSync(`${ROOT}README.md`, "utf8");
  const links = [...readme.matchAll(/configuration table(?:\]|[^[]{0,20}\[[^\]]+\])\(([^)#]+)#([^)]+)\)/g)];

  it("lead to a section that names every variable the configuration reads", () => {
    expect(links.length).toBeGreaterThanOrEqual(2);
    for (const [, file, anchor] of links) {
      const sections = readFileSync(`${ROOT}${file}`, "utf8").split(/^(?=#{2,3} )/m);
      const slug = (heading: string) =>
        heading
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\s-]/gu, "")
          .trim()
          .replace(/\s/g, "-");
      const section = sections.find((part) => slug(part.split("\n")[0]?.replace(/^#+ /, "") ?? "") === anchor) ?? "";
      expect(
        read.filter((name) => !section.includes(`\`${name}\``)),
        `${file}#${anchor}`,
      ).toEqual([]);
    }
  });
});
