import { existsSync, readdirSync, readFileSync } from "node:fs";
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
    const files = readdirSync(new URL(".", import.meta.url)).filter((file) => file.endsWith(".ts") && !file.endsWith(".spec.ts"));
    const documented = documentedPorts(readFileSync(new URL("../../../../docs/architecture.md", import.meta.url), "utf8"));
    expect([...documented].sort()).toEqual(files.map(portOf).sort());
  });
});

// The numbered steps of docs/architecture.md's "One request's path" section, each opening with a source file.
const requestPath = (markdown: string) => {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("One request's path")) ?? "";
  return [...section.matchAll(/^\d+\. `([\w./-]+\.ts)`/gm)].map((match) => match[1] as string);
};

describe("docs/architecture.md's request path", () => {
  it("names at most eight source files, each of them real", () => {
    const files = requestPath(readFileSync(new URL("../../../../docs/architecture.md", import.meta.url), "utf8"));
    expect(files.length).toBeGreaterThan(0);
    expect(files.length).toBeLessThanOrEqual(8);
    for (const file of files) expect(existsSync(new URL(`../../../${file}`, import.meta.url)), file).toBe(true);
  });
});

describe("core/src/ports", () => {
  it("holds interfaces and types only: implementations are adapters", () => {
    const files = readdirSync(new URL(".", import.meta.url)).filter((file) => file.endsWith(".ts") && !file.endsWith(".spec.ts"));
    for (const file of files) {
      const values = [...readFileSync(new URL(file, import.meta.url), "utf8").matchAll(/^export (?:const|let|function|class) (\w+)/gm)].map((match) => match[1]);
      // EVERY_CONNECTION is part of the ConnectionChanges contract (what a listener may hear), not an implementation.
      expect(values.filter((name) => name !== "EVERY_CONNECTION"), file).toEqual([]);
    }
  });
});
