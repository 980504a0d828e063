import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { embed } from "./embed.js";

describe("the README's embedding example", () => {
  it("runs as shown", async () => {
    expect(await embed()).toEqual([
      "added",
      '{"alias":"lab","valid":true,"type":"partner","version":1}',
      "alias: must start with a letter or digit and contain only letters, digits, '.', '_' and '-'; orchestratorUrl: is required; apiKey: is required",
    ]);
  });

  it("is quoted verbatim in the README", async () => {
    const [readme, example] = await Promise.all([
      readFile(new URL("../README.md", import.meta.url), "utf8"),
      readFile(new URL("./embed.ts", import.meta.url), "utf8"),
    ]);
    expect(readme).toContain(example.trim());
  });

  it("and its adapter's contract snippet, which compiles (examples/adapter-contract.ts)", async () => {
    const [readme, example] = await Promise.all([
      readFile(new URL("../README.md", import.meta.url), "utf8"),
      readFile(new URL("./adapter-contract.ts", import.meta.url), "utf8"),
    ]);
    const snippet = example.slice(example.indexOf("describeConnectionRepositoryContract(")).trim();
    expect(readme).toContain(snippet);
  });
});
