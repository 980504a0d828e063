import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The port a file holds, by the house's naming: connection-repository.ts holds ConnectionRepository.
const portOf = (file: string) =>
  file
    .replace(/\.ts$/, "")
    .split("-")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");

// The first column of docs/architecture.md's "## Ports" table.
const documentedPorts = (markdown: string) => {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Ports\n")) ?? "";
  return [...section.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]);
};

describe("docs/architecture.md's ports table", () => {
  it("names exactly the ports in core/src/ports, once each", () => {
    const files = readdirSync(new URL(".", import.meta.url)).filter(
      (file) => file.endsWith(".ts") && !file.endsWith(".spec.ts"),
    );
    const documented = documentedPorts(
      readFileSync(new URL("../../../../docs/architecture.md", import.meta.url), "utf8"),
    );
    expect([...documented].sort()).toEqual(files.map(portOf).sort());
  });
});

describe("core/src/ports", () => {
  it("holds interfaces and types only: implementations are adapters", () => {
    const files = readdirSync(new URL(".", import.meta.url)).filter(
      (file) => file.endsWith(".ts") && !file.endsWith(".spec.ts"),
    );
    for (const file of files) {
      const values = [
        ...readFileSync(new URL(file, import.meta.url), "utf8").matchAll(
          /^export (?:const|let|function|class) (\w+)/gm,
        ),
      ].map((match) => match[1]);
      // EVERY_CONNECTION is part of the ConnectionChanges contract (what a listener may hear), not an implementation.
      expect(
        values.filter((name) => name !== "EVERY_CONNECTION"),
        file,
      ).toEqual([]);
    }
  });
});
