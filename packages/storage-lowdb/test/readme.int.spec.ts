import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Alias } from "@sdwan-connections/core";
import { aConnection } from "@sdwan-connections/core/testing";
import { describe, expect, it } from "vitest";
import { run, temporaryDirectory } from "./support.js";
import { openStorage, rotateMasterKey } from "./wiring-example.js";

const base64Key = (fill: number) => Buffer.alloc(32, fill).toString("base64");

describe("the README", () => {
  it("shows the wiring example exactly as tested here", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const example = await readFile(new URL("./wiring-example.ts", import.meta.url), "utf8");
    expect(readme).toContain(example.trim());
  });

  it("wiring: first start generates the key, the store survives a restart, a wrong key stops the start", async () => {
    await using directory = await temporaryDirectory();
    const env = { SDWAN_DATA_DIR: join(directory.path, "data") };
    const first = await openStorage(env);
    await run(first.repository.insert(aConnection({ alias: "lab", apiKey: "the-key" })));
    await first.close();
    const second = await openStorage(env);
    expect((await run(second.repository.get("lab" as Alias))).apiKey.reveal()).toBe("the-key");
    await second.close();
    await expect(openStorage({ ...env, SDWAN_MASTER_KEY: base64Key(1) })).rejects.toThrow(/wrong master key/);
  });

  it("rotation procedure: new key current, old key previous, rotate, then the old key can go", async () => {
    await using directory = await temporaryDirectory();
    const dataDir = join(directory.path, "data");
    const before = await openStorage({ SDWAN_DATA_DIR: dataDir, SDWAN_MASTER_KEY: base64Key(1) });
    await run(before.repository.insert(aConnection({ alias: "lab", apiKey: "the-key" })));
    await before.close();
    const during = { SDWAN_DATA_DIR: dataDir, SDWAN_MASTER_KEY: base64Key(2), SDWAN_MASTER_KEY_PREVIOUS: base64Key(1) };
    expect(await rotateMasterKey(during)).toEqual({ rotated: 1, total: 1 });
    const after = await openStorage({ SDWAN_DATA_DIR: dataDir, SDWAN_MASTER_KEY: base64Key(2) });
    expect((await run(after.repository.get("lab" as Alias))).apiKey.reveal()).toBe("the-key");
    await after.close();
  });
});
