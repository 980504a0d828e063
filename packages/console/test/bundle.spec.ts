import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { CONSOLE_DIRECTORY } from "../index.js";

const BUDGET_BYTES = 150 * 1024;

/** The built console (the test task builds it first). */
describe("the console's build", () => {
  it("ships at most 150 KB of JavaScript, gzipped", async () => {
    const assets = join(CONSOLE_DIRECTORY, "assets");
    const scripts = (await readdir(assets)).filter((name) => name.endsWith(".js"));
    expect(scripts.length).toBeGreaterThan(0);
    const sizes = await Promise.all(
      scripts.map(async (name) => gzipSync(await readFile(join(assets, name)), { level: 9 }).length),
    );
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it("has no inline script and loads everything from the service itself", async () => {
    const html = await readFile(join(CONSOLE_DIRECTORY, "index.html"), "utf8");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
  });
});
