import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_AUDIT_RETENTION } from "@sdwan-connections/core";
import { describeAuditLogContract } from "@sdwan-connections/core/contract";
import { anAuditEntry, expectLeft, expectRight } from "@sdwan-connections/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { AUDIT_FILE, createLowdbAuditLog } from "../src/audit-file.js";

let dataDir = "";
const opened: { close(): Promise<void> }[] = [];
const directories: string[] = [];
const newDataDir = async () => {
  dataDir = await mkdtemp(join(tmpdir(), "sdwan-audit-"));
  directories.push(dataDir);
  return dataDir;
};

afterAll(async () => {
  await Promise.all(opened.map((log) => log.close()));
  await Promise.all(directories.map((directory) => rm(directory, { recursive: true, force: true })));
});

// Each log another handle on the data directory, as another process's would be.
describeAuditLogContract("LowdbAuditLog", {
  make: async (retention) => {
    const log = createLowdbAuditLog({ dataDir, retention });
    opened.push(log);
    return log;
  },
  reset: async () => {
    await newDataDir();
  },
});

describe("audit.jsonl", () => {
  it("is private, one decoded line per entry; an append cut short by a crash is skipped, a damaged line named, not shown", async () => {
    const directory = await newDataDir();
    const log = createLowdbAuditLog({ dataDir: directory });
    opened.push(log);
    const entry = anAuditEntry();
    await expectRight(log.record(entry));
    const path = join(directory, AUDIT_FILE);
    expect((await stat(path)).mode & 0o077).toBe(0);
    const text = await readFile(path, "utf8");
    await writeFile(path, `${text}{"id":"cut sh`);
    expect(await expectRight(log.list({ limit: 10 }))).toEqual([entry]);
    await writeFile(path, `${text}{"id":"x","secret":"pasted-secret"}\n`);
    const error = await expectLeft(log.list({ limit: 10 }));
    expect(error).toMatchObject({ _tag: "StorageFailure", reason: expect.stringContaining(`line 2 of ${AUDIT_FILE}`) });
    expect(JSON.stringify(error)).not.toContain("pasted-secret");
  });

  it("rewrites itself without what the retention no longer keeps", async () => {
    const directory = await newDataDir();
    const log = createLowdbAuditLog({ dataDir: directory, retention: { ...DEFAULT_AUDIT_RETENTION, maxEntries: 2 } });
    opened.push(log);
    const path = join(directory, AUDIT_FILE);
    await writeFile(path, "", { mode: 0o600 });
    const old = [anAuditEntry(), anAuditEntry(), anAuditEntry()];
    const seeded = createLowdbAuditLog({ dataDir: directory, retention: { ...DEFAULT_AUDIT_RETENTION, maxEntries: 100 } });
    opened.push(seeded);
    for (const entry of old) await expectRight(seeded.record(entry));
    const newest = anAuditEntry();
    await expectRight(log.record(newest));
    const lines = (await readFile(path, "utf8")).trim().split("\n");
    expect(lines.map((text) => (JSON.parse(text) as { id: string }).id)).toEqual([old[2]?.id, newest.id]);
  });
});
