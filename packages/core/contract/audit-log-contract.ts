import { describe, expect, it, vi } from "vitest";
import {
  isAuditedChange,
  type Alias,
  type AuditEntry,
  type AuditHead,
  type AuditLog,
  type AuditRetention,
} from "../src/index.js";
import { anAuditEntry } from "../testing/builders.js";
import { expectRight as run } from "../testing/run.js";
import { useStoreUnderTest, type StoreUnderTest } from "./store-under-test.js";

export interface AuditLogContractOptions extends StoreUnderTest {
  /** A log over the store under test, keeping what `retention` allows. Every log it returns sees the same entries. */
  make(retention: AuditRetention): Promise<AuditLog>;
}

// Another process's entry reaches a subscriber within a second (the events' promise), with room for a loaded machine.
const DELIVERY = { timeout: 3_000, interval: 20 };

const KEEP_ALL: AuditRetention = { maxEntries: 1000, maxAttempts: 1000, maxAgeMs: 365 * 24 * 3600 * 1000 };
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

/** The behaviour every AuditLog adapter must show; run it from the adapter's own tests. */
export const describeAuditLogContract = (name: string, options: AuditLogContractOptions): void => {
  describe(`${name} satisfies the AuditLog contract`, () => {
    useStoreUnderTest(options);

    it("keeps every field of an entry and lists newest first", async () => {
      const log = await options.make(KEEP_ALL);
      const older = anAuditEntry({ at: minutesAgo(2), action: "add", fields: ["alias", "orchestratorUrl", "apiKey"] });
      const newer = anAuditEntry({
        at: minutesAgo(1),
        action: "rotate-master-key",
        alias: null,
        fields: [],
        requestId: null,
        validation: "not-asked",
        outcome: "failed",
        failure: "StorageFailure",
        forced: true,
      });
      await run(log.record(older));
      await run(log.record(newer));
      expect(await run(log.list({ limit: 10 }))).toEqual([newer, older]);
    });

    it("selects by alias in any case and by time, and pages with `before` without losing or repeating an entry", async () => {
      const log = await options.make(KEEP_ALL);
      const entries = Array.from({ length: 7 }, (_, i) =>
        anAuditEntry({ at: minutesAgo(10 - i), alias: (i % 2 === 0 ? "Lab" : "prod") as Alias }),
      );
      for (const entry of entries) await run(log.record(entry));
      expect((await run(log.list({ limit: 10, alias: "LAB" as Alias }))).map((entry) => entry.id)).toEqual(
        entries
          .filter((_, i) => i % 2 === 0)
          .map((entry) => entry.id)
          .reverse(),
      );
      expect(await run(log.list({ limit: 10, since: entries[5]?.at as Date }))).toEqual([entries[6], entries[5]]);
      const seen: string[] = [];
      let page = await run(log.list({ limit: 3 }));
      while (page.length > 0) {
        seen.push(...page.map((entry) => entry.id));
        page = await run(log.list({ limit: 3, before: page.at(-1)?.id as string }));
      }
      expect(seen).toEqual(entries.map((entry) => entry.id).reverse());
    });

    it("keeps only the newest `maxEntries`, and nothing older than `maxAgeMs`", async () => {
      const log = await options.make({ maxEntries: 3, maxAttempts: 3, maxAgeMs: 60 * 60_000 });
      const tooOld = anAuditEntry({ at: minutesAgo(61) });
      await run(log.record(tooOld));
      const recent = Array.from({ length: 4 }, (_, i) => anAuditEntry({ at: minutesAgo(5 - i) }));
      for (const entry of recent) await run(log.record(entry));
      expect((await run(log.list({ limit: 100 }))).map((entry) => entry.id)).toEqual(
        recent
          .slice(1)
          .map((entry) => entry.id)
          .reverse(),
      );
    });

    it("keeps changes and attempts apart: no flood of refused, failed or unchanging attempts and health changes pushes a change out", async () => {
      const retention = { maxEntries: 20, maxAttempts: 50, maxAgeMs: 60 * 60_000 };
      const logs = [await options.make(retention), await options.make(retention)];
      const changes = [
        ...Array.from({ length: 25 }, (_, i) =>
          anAuditEntry({ at: minutesAgo(30 - i), action: i % 3 === 0 ? "add" : i % 3 === 1 ? "update" : "delete" }),
        ),
        anAuditEntry({ at: minutesAgo(4), action: "rotate-master-key", alias: null }),
        // Changes to no connection (SPEC §11, §9): grants, service tokens and webhooks.
        ...(
          [
            "grant-add",
            "grant-remove",
            "token-create",
            "token-renew",
            "token-revoke",
            "webhook-create",
            "webhook-delete",
            "webhook-disable",
          ] as const
        ).map((action, i) =>
          anAuditEntry({ at: minutesAgo(3.9 - i / 10), action, alias: null, fields: [], validation: "not-asked" }),
        ),
      ];
      for (const entry of changes) await run((logs[0] as AuditLog).record(entry));
      // 1,010 attempts of every kind, from two logs at once, all newer than every change.
      const kinds = [
        { action: "add", outcome: "failed", failure: "ValidationRefused" },
        { action: "update", outcome: "failed", failure: "NotFound" },
        { action: "update", outcome: "unchanged", failure: null },
        { action: "dry-run", outcome: "succeeded", failure: null },
        { action: "health-change", outcome: "succeeded", failure: null, detail: "valid → unreachable" },
        { action: "key-check", outcome: "failed", failure: "KeyMismatch" },
        { action: "forbidden", outcome: "failed", failure: "Forbidden", detail: "DELETE" },
      ] as const;
      const attempts = Array.from({ length: 1010 }, (_, i) =>
        anAuditEntry({ at: minutesAgo(3 - i / 1000), ...kinds[i % kinds.length] }),
      );
      await Promise.all(attempts.map((entry, i) => run((logs[i % 2] as AuditLog).record(entry))));
      const kept = await run((logs[1] as AuditLog).list({ limit: 1000 }));
      const keptIds = new Set(kept.map((entry) => entry.id));
      // The newest 20 changes all stay (the 11 oldest went, pushed out by newer changes only), and the newest 50 attempts.
      const newestChanges = [...changes].sort((a, b) => (a.id < b.id ? 1 : -1)).slice(0, 20);
      expect(newestChanges.filter((entry) => !keptIds.has(entry.id))).toEqual([]);
      expect(kept.filter((entry) => isAuditedChange(entry))).toHaveLength(20);
      expect(kept.filter((entry) => !isAuditedChange(entry))).toHaveLength(50);
      expect(kept.filter((entry) => !isAuditedChange(entry)).map((entry) => entry.id)).toEqual(
        [...attempts]
          .sort((a, b) => (a.id < b.id ? 1 : -1))
          .slice(0, 50)
          .map((entry) => entry.id),
      );
    });

    it("loses no entry when several logs over the store record at once", async () => {
      const logs = [await options.make(KEEP_ALL), await options.make(KEEP_ALL)];
      const entries = Array.from({ length: 20 }, () => anAuditEntry());
      await Promise.all(entries.map((entry, i) => run((logs[i % 2] as AuditLog).record(entry))));
      expect(await run((logs[0] as AuditLog).list({ limit: 100 }))).toHaveLength(20);
    });

    it("lists the kept entries after an id, oldest first, a page at a time, from every log over the store", async () => {
      const logs = [
        await options.make({ maxEntries: 5, maxAttempts: 5, maxAgeMs: 60 * 60_000 }),
        await options.make({ maxEntries: 5, maxAttempts: 5, maxAgeMs: 60 * 60_000 }),
      ];
      const entries = Array.from({ length: 7 }, (_, i) => anAuditEntry({ at: minutesAgo(10 - i) }));
      for (const [i, entry] of entries.entries()) await run((logs[i % 2] as AuditLog).record(entry));
      const ids = (found: readonly AuditEntry[]) => found.map((entry) => entry.id);
      // The two oldest are beyond the retention (5 changes): gone from this list as from every other.
      const after = async (log: number, id: string | null, limit: number) =>
        (await run((logs[log] as AuditLog).listAfter(id, limit))).entries;
      expect(ids(await after(1, null, 100))).toEqual(ids(entries.slice(2)));
      expect(ids(await after(0, null, 1))).toEqual(ids(entries.slice(2, 3)));
      expect(await after(0, entries[3]?.id as string, 2)).toEqual(entries.slice(4, 6));
      expect(await after(1, entries[6]?.id as string, 10)).toEqual([]);
      // An id that is not kept (or never was) still places the reader: what is kept after it.
      expect(ids(await after(1, entries[0]?.id as string, 10))).toEqual(ids(entries.slice(2)));
      // Where to read on: the last entry of a full page, none after the last one.
      expect((await run((logs[0] as AuditLog).listAfter(entries[3]?.id as string, 2))).next).toBe(entries[5]?.id);
      expect((await run((logs[0] as AuditLog).listAfter(entries[3]?.id as string, 4))).next).toBeNull();
    });

    it("asks a page's selection about each entry's stored alias, action and outcome, and counts the page in entries read, not kept", async () => {
      const log = await options.make(KEEP_ALL);
      const entries = Array.from({ length: 9 }, (_, i) =>
        anAuditEntry({
          at: minutesAgo(10 - i),
          action: i % 3 === 2 ? "health-change" : "add",
          alias: (i % 2 === 0 ? `even-${i}` : `odd-${i}`) as Alias,
        }),
      );
      for (const entry of entries) await run(log.record(entry));
      const heads: AuditHead[] = [];
      const select = (head: AuditHead) => {
        heads.push({ alias: head.alias, action: head.action, outcome: head.outcome });
        return head.alias?.startsWith("even-") === true;
      };
      const first = await run(log.listAfter(entries[0]?.id as string, 4, select));
      expect(first.entries).toEqual([entries[2], entries[4]]);
      expect(first.next).toBe(entries[4]?.id);
      expect(heads).toEqual(entries.slice(1, 5).map(({ alias, action, outcome }) => ({ alias, action, outcome })));
      const rest = await run(log.listAfter(first.next, 5, select));
      expect(rest.entries).toEqual([entries[6], entries[8]]);
      expect(rest.next).toBeNull();
    });

    it("tells a subscriber, once each, every entry recorded after it subscribed, by this log or another over the store, and nothing after it unsubscribed", async () => {
      const [here, there] = [await options.make(KEEP_ALL), await options.make(KEEP_ALL)] as [AuditLog, AuditLog];
      const before = anAuditEntry({ at: minutesAgo(3) });
      await run(here.record(before));
      const heard: AuditEntry[] = [];
      const unsubscribe = await run(here.subscribe((entry) => heard.push(entry)));
      const [mine, theirs] = [
        anAuditEntry({ at: minutesAgo(2), action: "add" }),
        anAuditEntry({ at: minutesAgo(1), action: "health-change", detail: "valid → unreachable: timed out" }),
      ];
      await run(here.record(mine));
      await run(there.record(theirs));
      await vi.waitFor(
        () => expect([...heard].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([mine, theirs]),
        DELIVERY,
      );
      unsubscribe();
      await run(there.record(anAuditEntry()));
      await run(here.record(anAuditEntry()));
      // Whatever was under way is delivered by now; nothing more came, and nothing twice.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(heard).toHaveLength(2);
    });
  });
};
