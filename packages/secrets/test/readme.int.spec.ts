import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sealAndOpen } from "./wiring-example.js";

describe("the README", () => {
  it("shows the example exactly as tested here", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const example = await readFile(new URL("./wiring-example.ts", import.meta.url), "utf8");
    expect(readme).toContain(example.trim());
  });

  it("example: seals with a generated key file and opens again", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "sdwan-secrets-readme-"));
    try {
      const result = await sealAndOpen({}, dataDir);
      expect(result.opened).toBe("the-api-key");
      expect(result.sealed).toMatch(/^v2\.[0-9a-f]{8}\./);
      expect(result.needsRotation).toBe(false);
      await expect(sealAndOpen({ SDWAN_MASTER_KEY: "too-short" }, dataDir)).rejects.toThrow(
        /^SDWAN_MASTER_KEY must be the base64/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
