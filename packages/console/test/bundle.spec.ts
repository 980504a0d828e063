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

  it("is as small as the READMEs say: the script index.html loads, its .gz and .br twins within 10 %", async () => {
    const html = await readFile(join(CONSOLE_DIRECTORY, "index.html"), "utf8");
    const entry = join(
      CONSOLE_DIRECTORY,
      /<script[^>]*\bsrc="\/console\/([^"]+\.js)"/.exec(html)?.[1] ?? "(no script)",
    );
    const kib = async (file: string) => (await readFile(file)).length / 1024;
    const [gzipped, brotli] = [await kib(`${entry}.gz`), await kib(`${entry}.br`)];
    const own = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const root = await readFile(new URL("../../../README.md", import.meta.url), "utf8");
    const said = {
      gzipped: Number(/About (\d+) KB of JavaScript gzipped/.exec(own)?.[1]),
      brotli: Number(/gzipped, (\d+) KB with brotli/.exec(own)?.[1]),
      rootGzipped: Number(/(\d+) KB of JavaScript gzipped/.exec(root)?.[1]),
    };
    const off = (figure: number, actual: number) => Math.abs(figure - actual) / actual;
    expect(
      off(said.gzipped, gzipped),
      `console README: ${said.gzipped} KB gzipped, built ${gzipped.toFixed(1)}`,
    ).toBeLessThanOrEqual(0.1);
    expect(
      off(said.brotli, brotli),
      `console README: ${said.brotli} KB brotli, built ${brotli.toFixed(1)}`,
    ).toBeLessThanOrEqual(0.1);
    expect(
      off(said.rootGzipped, gzipped),
      `root README: ${said.rootGzipped} KB gzipped, built ${gzipped.toFixed(1)}`,
    ).toBeLessThanOrEqual(0.1);
  });

  it("has no inline script and loads everything from the service itself", async () => {
    const html = await readFile(join(CONSOLE_DIRECTORY, "index.html"), "utf8");
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
  });
});
