import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_AUDIT_RETENTION, type Alias, type AuditEntry } from "@sdwan-connections/core";
import { describeAuditLogContract } from "@sdwan-connections/core/contract";
import { anAuditEntry, expectRight } from "@sdwan-connections/core/testing";
import { afterAll, describe, expect, it, vi } from "vitest";
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

  it("appends within the retention without reading the trail again: a prune looks at the lines appended since (issue 40)", async () => {
    const directory = await newDataDir();
    const log = createLowdbAuditLog({
      dataDir: directory,
      retention: { ...DEFAULT_AUDIT_RETENTION, maxEntries: 100_000 },
    });
    opened.push(log);
    // 3,000 entries, 100 at once: six prunes' worth (one per 500 appends), each of which read the whole trail.
    for (let batch = 0; batch < 30; batch += 1)
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          expectRight(log.record(anAuditEntry({ at: new Date(Date.now() + batch * 100 + i), action: "add" }))),
        ),
      );
    const { size } = await stat(join(directory, AUDIT_FILE));
    // Each line read once into the index; the prunes' whole reads made about 2.4 times the file.
    expect(log.bytesRead()).toBeLessThanOrEqual(1.5 * size);
  });

  it("rewrites itself only once what is past the retention is a quarter of what it keeps (issue 40)", async () => {
    const directory = await newDataDir();
    const log = createLowdbAuditLog({ dataDir: directory, retention: { ...DEFAULT_AUDIT_RETENTION, maxEntries: 900 } });
    opened.push(log);
    const append = async (count: number, from: number) => {
      for (let batch = 0; batch < count / 100; batch += 1)
        await Promise.all(
          Array.from({ length: 100 }, (_, i) =>
            expectRight(log.record(anAuditEntry({ at: new Date(Date.now() + from + batch * 100 + i), action: "add" }))),
          ),
        );
    };
    const lines = async () => (await readFile(join(directory, AUDIT_FILE), "utf8")).trim().split("\n").length;
    await append(1_000, 0);
    // 100 past the 900 kept: left for now (a list leaves them out), not a rewrite of the whole trail.
    expect(await lines()).toBe(1_000);
    expect(await expectRight(log.list({ limit: 2_000 }))).toHaveLength(900);
    await append(500, 1_000);
    // 600 past: rewritten to what the retention keeps.
    expect(await lines()).toBe(900);
  });

  it("knows the trail it rewrote without reading it again: its pages after a prune are a new reader's (issue 40)", async () => {
    const directory = await newDataDir();
    const retention = { ...DEFAULT_AUDIT_RETENTION, maxEntries: 900 };
    const log = createLowdbAuditLog({ dataDir: directory, retention });
    opened.push(log);
    for (let batch = 0; batch < 15; batch += 1)
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          expectRight(log.record(anAuditEntry({ at: new Date(Date.now() + batch * 100 + i), action: "add" }))),
        ),
      );
    const { size } = await stat(join(directory, AUDIT_FILE));
    const read = log.bytesRead();
    const pages = async (of: typeof log) => (await expectRight(of.listAfter(null, 2_000))).entries.map(({ id }) => id);
    const ids = await pages(log);
    // Rewritten to the 900 kept, and paged from the index it made of them: only the page's lines read.
    expect(ids).toHaveLength(900);
    expect(log.bytesRead() - read).toBeLessThanOrEqual(size);
    const fresh = createLowdbAuditLog({ dataDir: directory, retention });
    opened.push(fresh);
    expect(ids).toEqual(await pages(fresh));
    await expectRight(log.record(anAuditEntry({ at: new Date(Date.now() + 10_000), action: "add" })));
    expect(await pages(log)).toEqual(await pages(fresh));
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

  it("replays from a cursor by seeking (issue 40): bytes read grow with the page handed out, never with the trail", async () => {
    const directory = await newDataDir();
    const base = Date.now() - 60 * 60_000;
    const entries: AuditEntry[] = Array.from({ length: 20_000 }, (_, i) =>
      anAuditEntry({ at: new Date(base + i), action: "add", alias: `c${i % 100}` as Alias }),
    );
    const lineOf = (entry: AuditEntry) => `${JSON.stringify({ ...entry, at: entry.at.toISOString() })}\n`;
    await writeFile(join(directory, AUDIT_FILE), entries.map(lineOf).join(""), { mode: 0o600 });
    const fileSize = (await stat(join(directory, AUDIT_FILE))).size;
    const log = createLowdbAuditLog({
      dataDir: directory,
      retention: { ...DEFAULT_AUDIT_RETENTION, maxEntries: 100_000 },
    });
    opened.push(log);
    const lineBytes = Buffer.byteLength(lineOf(entries[0] as AuditEntry));
    const readFor = async (after: string, limit: number, select?: (head: { alias: string | null }) => boolean) => {
      const before = log.bytesRead();
      const page = await expectRight(log.listAfter(after, limit, select));
      return { page, bytes: log.bytesRead() - before };
    };
    // The first page reads the file once, to index it.
    const first = await readFor(entries[100]?.id as string, 10);
    expect(first.page.entries).toEqual(entries.slice(101, 111));
    expect(first.bytes).toBeLessThan(fileSize + 20 * lineBytes);
    // Then each page costs its own lines (and a look at the index's last line), wherever it starts.
    for (const start of [19_990, 10_000, 500, 15_000]) {
      const { page, bytes } = await readFor(entries[start]?.id as string, 500);
      expect(page.entries).toEqual(entries.slice(start + 1, start + 501));
      expect(bytes, `page after ${start}`).toBeLessThanOrEqual((page.entries.length + 2) * lineBytes);
    }
    // Lines a selection refuses are never read: one alias in a hundred.
    const selected = await readFor(entries[1_000]?.id as string, 5_000, (head) => head.alias === "c7");
    expect(selected.page.entries).toEqual(entries.slice(1_001, 6_001).filter((entry) => entry.alias === "c7"));
    expect(selected.bytes).toBeLessThanOrEqual((selected.page.entries.length + 2) * lineBytes);
    // Entries appended since: only they are read into the index.
    const later = Array.from({ length: 5 }, (_, i) => anAuditEntry({ at: new Date(Date.now() + i), action: "add" }));
    for (const entry of later) await expectRight(log.record(entry));
    const appended = await readFor(entries.at(-1)?.id as string, 500);
    expect(appended.page.entries).toEqual(later);
    expect(appended.bytes).toBeLessThanOrEqual(4 * 5 * lineBytes);
    // A subscriber hears another process's appends by reading them, never the trail again.
    const heard: AuditEntry[] = [];
    const before = log.bytesRead();
    const unsubscribe = await expectRight(log.subscribe((entry) => heard.push(entry)));
    const other = createLowdbAuditLog({
      dataDir: directory,
      retention: { ...DEFAULT_AUDIT_RETENTION, maxEntries: 100_000 },
    });
    opened.push(other);
    const theirs = Array.from({ length: 5 }, (_, i) =>
      anAuditEntry({ at: new Date(Date.now() + 10 + i), action: "add" }),
    );
    for (const entry of theirs) await expectRight(other.record(entry));
    await vi.waitFor(() => expect(heard).toEqual(theirs), { timeout: 5_000, interval: 20 });
    expect(log.bytesRead() - before).toBeLessThanOrEqual(20 * 5 * lineBytes);
    unsubscribe();
  });
});
