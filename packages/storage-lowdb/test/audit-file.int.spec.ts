import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_AUDIT_RETENTION } from "@sdwan-connections/core";
import { describeAuditLogContract } from "@sdwan-connections/core/contract";
import { anAuditEntry, expectRight } from "@sdwan-connections/core/testing";
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
  it("is private, one decoded line per entry; an append cut short is skipped, a damaged line skipped and reported by number, never shown", async () => {
    const directory = await newDataDir();
    const warnings: string[] = [];
    const log = createLowdbAuditLog({ dataDir: directory, onWarning: (warning) => warnings.push(warning) });
    opened.push(log);
    const entry = anAuditEntry();
    await expectRight(log.record(entry));
    const path = join(directory, AUDIT_FILE);
    expect((await stat(path)).mode & 0o077).toBe(0);
    const text = await readFile(path, "utf8");
    await writeFile(path, `${text}{"id":"cut sh`);
    expect(await expectRight(log.list({ limit: 10 }))).toEqual([entry]);
    const later = anAuditEntry({ at: new Date(entry.at.getTime() + 1) });
    await writeFile(
      path,
      `${text}{"id":"x","secret":"pasted-secret"}\nnot json\n${text.replace(entry.id, later.id).replace(entry.at.toISOString(), later.at.toISOString())}`,
    );
    expect(await expectRight(log.list({ limit: 10 }))).toEqual([later, entry]);
    expect(warnings).toEqual([`${AUDIT_FILE}: 2 damaged line(s) skipped (line 2, 3); the next rewrite drops them.`]);
    // Reported once, not at every list.
    await expectRight(log.list({ limit: 10 }));
    expect(warnings).toHaveLength(1);
    expect(warnings.join()).not.toContain("pasted-secret");
  });

  it("cuts off what an append cut short left at its end (a full disk's partial line) before the next append, which starts on its own line", async () => {
    const directory = await newDataDir();
    const log = createLowdbAuditLog({ dataDir: directory });
    opened.push(log);
    const first = anAuditEntry();
    await expectRight(log.record(first));
    const path = join(directory, AUDIT_FILE);
    const text = await readFile(path, "utf8");
    await writeFile(path, `${text}{"id":"2026-11-25T10:00:00.000Z-00`);
    const second = anAuditEntry({ at: new Date(first.at.getTime() + 1) });
    await expectRight(log.record(second));
    expect(await expectRight(log.list({ limit: 10 }))).toEqual([second, first]);
    const lines = (await readFile(path, "utf8")).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines.slice(0, 2).map((raw) => (JSON.parse(raw) as { id: string }).id)).toEqual([first.id, second.id]);
  });

  it("rewrites itself without what the retention no longer keeps, a damaged line in the middle included", async () => {
    const directory = await newDataDir();
    const log = createLowdbAuditLog({ dataDir: directory, retention: { ...DEFAULT_AUDIT_RETENTION, maxEntries: 2 } });
    opened.push(log);
    const path = join(directory, AUDIT_FILE);
    await writeFile(path, "", { mode: 0o600 });
    const old = [anAuditEntry(), anAuditEntry(), anAuditEntry()];
    const seeded = createLowdbAuditLog({
      dataDir: directory,
      retention: { ...DEFAULT_AUDIT_RETENTION, maxEntries: 100 },
    });
    opened.push(seeded);
    for (const entry of old) await expectRight(seeded.record(entry));
    const [first, ...rest] = (await readFile(path, "utf8")).split("\n");
    await writeFile(path, [first, "{not an entry", ...rest].join("\n"));
    const newest = anAuditEntry();
    await expectRight(log.record(newest));
    const lines = (await readFile(path, "utf8")).trim().split("\n");
    expect(lines.map((text) => (JSON.parse(text) as { id: string }).id)).toEqual([old[2]?.id, newest.id]);
  });
});
