import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { AuditEntry } from "@sdwan-connections/core";
import { aConnection, anAuditEntry } from "@sdwan-connections/core/testing";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { AUDIT_FILE } from "../src/audit-file.js";
import { openLowdbStorage } from "../src/open-lowdb-storage.js";
import { startFixture } from "./processes.js";
import { keyringOf, run, temporaryDirectory } from "./support.js";

// The fixture processes run under `ulimit -f`: a write past the limit writes what fits, then fails (EFBIG),
// exactly what a full disk does to an append; the probe file that readiness writes (4 KiB) still fits.
const LIMIT = 8192;

const openStorage = async (dataDir: string) => {
  const opened = await openLowdbStorage({ dataDir, keyring: keyringOf(), lockStaleMs: 2000 })();
  if (E.isLeft(opened)) throw new Error(opened.left._tag);
  return opened.right;
};

const listAll = async (dataDir: string): Promise<readonly AuditEntry[]> => {
  const storage = await openStorage(dataDir);
  try {
    return await run(storage.audit.list({ limit: 1000 }));
  } finally {
    await storage.close();
  }
};

describe("the embedded audit trail on a full disk", () => {
  it("leaves no partial line when an append does not fit, is not ready meanwhile, and reads whole and grows after a restart with space", async () => {
    await using directory = await temporaryDirectory();
    const seeding = await openStorage(directory.path);
    await run(seeding.audit.record(anAuditEntry()));
    // Close below the limit: a few more entries fit, then one is cut short.
    while ((await readFile(join(directory.path, AUDIT_FILE))).length < LIMIT - 1_500)
      await run(seeding.audit.record(anAuditEntry()));
    await seeding.close();

    const full = startFixture(["record", directory.path, "12"], LIMIT);
    expect((await full.exited).code).toBe(0);
    const acknowledged = full.lines.filter((line) => line === "ack").length;
    expect(acknowledged).toBeGreaterThan(0);
    expect(full.lines.slice(acknowledged)).toEqual([
      ...Array<string>(12 - acknowledged).fill("fail StorageFailure"),
      "ping fail StorageFailure",
    ]);
    const text = await readFile(join(directory.path, AUDIT_FILE), "utf8");
    expect(text.endsWith("\n")).toBe(true);

    // Restarted with space: every entry reads, and appends go on, on their own lines.
    const before = await listAll(directory.path);
    const storage = await openStorage(directory.path);
    const after = anAuditEntry({ alias: "after" as never });
    await run(storage.audit.record(after));
    await run(storage.repository.ping());
    expect(await run(storage.audit.list({ limit: 1000 }))).toEqual([after, ...before]);
    await storage.close();
    expect(
      (await readFile(join(directory.path, AUDIT_FILE), "utf8"))
        .split("\n")
        .slice(0, -1)
        .every((line) => line.startsWith("{") && line.endsWith("}")),
    ).toBe(true);
  });

  it("keeps no 'succeeded' entry of a change whose file could not be replaced", async () => {
    await using directory = await temporaryDirectory();
    const seeding = await openStorage(directory.path);
    // connections.json past the limit: its replacement cannot be written, while the trail's append fits.
    for (let i = 0; (await readFile(join(directory.path, "connections.json"))).length < LIMIT; i += 1)
      await run(seeding.repository.insert(aConnection({ alias: `seed-${i}` })));
    await seeding.close();

    const adding = startFixture(["add", directory.path, "phantom"], LIMIT);
    expect(await adding.exited).toMatchObject({ code: 0, stderr: "" });
    expect(adding.lines).toEqual(["fail StorageFailure"]);
    expect((await listAll(directory.path)).filter((entry) => entry.alias === "phantom")).toEqual([]);
    expect(await readFile(join(directory.path, AUDIT_FILE), "utf8")).not.toContain("phantom");
  });

  it("keeps no entry of a change whose writer died before the change landed, and keeps the next change's", async () => {
    await using directory = await temporaryDirectory();
    const seeding = await openStorage(directory.path);
    await run(
      seeding.repository.insert(
        aConnection({ alias: "first" }),
        anAuditEntry({ action: "add", alias: "first" as never }),
      ),
    );
    await seeding.close();

    // A writer appends the entry of the store's next change (version 2), then is killed before its change lands.
    const writer = startFixture(["append-and-hang", directory.path, "2"]);
    await writer.line("appended");
    writer.child.kill("SIGKILL");
    await writer.exited;
    expect(await readFile(join(directory.path, AUDIT_FILE), "utf8")).toContain("never-landed");

    // The next start cuts it off; the next change (version 2 too) keeps its own entry.
    const storage = await openStorage(directory.path);
    expect(await readFile(join(directory.path, AUDIT_FILE), "utf8")).not.toContain("never-landed");
    await run(
      storage.repository.insert(
        aConnection({ alias: "second" }),
        anAuditEntry({ action: "add", alias: "second" as never }),
      ),
    );
    await storage.close();
    expect((await listAll(directory.path)).map((entry) => entry.alias)).toEqual(["second", "first"]);
  });
});
