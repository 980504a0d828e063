import { mkdir, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { WRITE_PROBE_FILE } from "@sdwan-connections/storage-lowdb";
import { describe, expect, it } from "vitest";
import { client, startWiredService } from "./harness.js";

describe("/readyz on the embedded store", () => {
  it("answers 503 while no file can be written in the data directory (as on a full disk), 200 again after", async () => {
    await using service = await startWiredService();
    const readyz = async () => (await client(service.url)("GET", "/readyz", { user: null })).status;
    expect(await readyz()).toBe(200);
    // A directory where the store's write probe goes: its write fails even for root, as every write would on a full disk.
    await mkdir(join(service.dir, WRITE_PROBE_FILE));
    await expect.poll(readyz, { timeout: 5_000 }).toBe(503);
    await rmdir(join(service.dir, WRITE_PROBE_FILE));
    await expect.poll(readyz, { timeout: 5_000 }).toBe(200);
  });
});
