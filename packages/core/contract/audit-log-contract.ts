import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { Alias, AuditLog, AuditRetention } from "../src/index.js";
import { anAuditEntry } from "../testing/builders.js";
import { expectRight as run } from "../testing/run.js";

export interface AuditLogContractOptions {
  /** A log over the store under test, keeping what `retention` allows. Every log it returns sees the same entries. */
  make(retention: AuditRetention): Promise<AuditLog>;
  /** Empties the store before each test. */
  reset(): Promise<void>;
  /** Releases what `make` opened, after the suite. */
  close?(): Promise<void>;
}

const KEEP_ALL: AuditRetention = { maxEntries: 1000, maxAgeMs: 365 * 24 * 3600 * 1000 };
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

/** The behaviour every AuditLog adapter must show; run it from the adapter's own tests. */
export const describeAuditLogContract = (name: string, options: AuditLogContractOptions): void => {
  describe(`${name} satisfies the AuditLog contract`, () => {
    beforeEach(async () => {
      await options.reset();
    });

    afterAll(async () => {
      await options.close?.();
    });

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
      const entries = Array.from({ length: 7 }, (_, i) => anAuditEntry({ at: minutesAgo(10 - i), alias: (i % 2 === 0 ? "Lab" : "prod") as Alias }));
      for (const entry of entries) await run(log.record(entry));
      expect((await run(log.list({ limit: 10, alias: "LAB" as Alias }))).map((entry) => entry.id)).toEqual(
        entries.filter((_, i) => i % 2 === 0).map((entry) => entry.id).reverse(),
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
      const log = await options.make({ maxEntries: 3, maxAgeMs: 60 * 60_000 });
      const tooOld = anAuditEntry({ at: minutesAgo(61) });
      await run(log.record(tooOld));
      const recent = Array.from({ length: 4 }, (_, i) => anAuditEntry({ at: minutesAgo(5 - i) }));
      for (const entry of recent) await run(log.record(entry));
      expect((await run(log.list({ limit: 100 }))).map((entry) => entry.id)).toEqual(recent.slice(1).map((entry) => entry.id).reverse());
    });

    it("loses no entry when several logs over the store record at once", async () => {
      const logs = [await options.make(KEEP_ALL), await options.make(KEEP_ALL)];
      const entries = Array.from({ length: 20 }, () => anAuditEntry());
      await Promise.all(entries.map((entry, i) => run((logs[i % 2] as AuditLog).record(entry))));
      expect(await run((logs[0] as AuditLog).list({ limit: 100 }))).toHaveLength(20);
    });
  });
};
