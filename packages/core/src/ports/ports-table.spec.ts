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
    const files = readdirSync(new URL(".", import.meta.url)).filter((file) => file.endsWith(".ts") && !file.endsWith(".spec.ts"));
    const documented = documentedPorts(readFileSync(new URL("../../../../docs/architecture.md", import.meta.url), "utf8"));
    expect([...documented].sort()).toEqual(files.map(portOf).sort());
  });
});
