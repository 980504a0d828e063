import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { processEnvironment } from "./environment.js";

describe("processEnvironment", () => {
  it("is a copy read once, not the live environment", () => {
    const env = processEnvironment();
    expect(env).not.toBe(process.env);
    expect(env).toEqual({ ...process.env });
  });

  it("reads a large environment whole and exactly, every variable with its value (issue 40)", () => {
    // 5,000 variables (about 450 KiB), past the size read in one pass; values with '=' and spaces.
    const env: Record<string, string> = { PATH: process.env["PATH"] ?? "" };
    for (let i = 0; i < 5_000; i += 1) env[`SDWAN_APIKEY_CONN_2D${i}`] = `key=${i} of ${"k".repeat(60)}`;
    // process.env's reads counted: each one scans the whole C environment, so a copy must not make one per variable.
    const script = `const live = process.env;
      let reads = 0;
      const counted = new Proxy(live, {
        get: (target, name) => ((reads += 1), Reflect.get(target, name)),
        getOwnPropertyDescriptor: (target, name) => ((reads += 1), Reflect.getOwnPropertyDescriptor(target, name)),
      });
      import(${JSON.stringify(new URL("./environment.ts", import.meta.url).href)}).then(({ processEnvironment }) => {
        Object.defineProperty(process, "env", { value: counted, configurable: true, writable: true });
        const copy = processEnvironment();
        const copyReads = reads;
        process.stdout.write(JSON.stringify({ copy, spread: { ...live }, copyReads }));
      })`;
    const out = execFileSync(process.execPath, ["--import", "tsx", "-e", script], { env, maxBuffer: 64 * 2 ** 20 });
    const { copy, spread, copyReads } = JSON.parse(out.toString()) as {
      copy: Record<string, string>;
      spread: Record<string, string>;
      copyReads: number;
    };
    expect(copyReads).toBeLessThan(100);
    expect(Object.keys(copy)).toHaveLength(Object.keys(spread).length);
    expect(copy).toEqual(spread);
    expect(copy["SDWAN_APIKEY_CONN_2D4999"]).toBe(`key=4999 of ${"k".repeat(60)}`);
  }, 60_000);
});
