import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const README = readFileSync(`${ROOT}README.md`, "utf8");

// The root README's "Packages" table: the package each row links to.
const ROWS = [
  ...(README.split("## Packages")[1]?.split("\n## ")[0] ?? "").matchAll(/^\| \[`([^`]+)`\]\(packages\/([^)]+)\)/gm),
];

describe("the root README's Packages table", () => {
  it("has a row for every package, each linking to its own folder", () => {
    const packages = readdirSync(`${ROOT}packages`, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    expect(ROWS.map(([, name]) => name).sort()).toEqual(packages);
    expect(ROWS.filter(([, name, folder]) => name !== folder)).toEqual([]);
  });
});
