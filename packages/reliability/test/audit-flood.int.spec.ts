import { describe, expect, it } from "vitest";
import { BASE, report, startWorld, tally } from "./support.js";

const REFUSED = 10_100;
const CLIENTS = 20;
const ORCHESTRATOR = "https://orchestrator.example.net/";

interface AuditPage {
  readonly entries: readonly {
    readonly id: string;
    readonly action: string;
    readonly alias: string | null;
    readonly outcome: string;
  }[];
  readonly next: string | null;
}

describe("an audit flood", { timeout: 300_000 }, () => {
  it(`${REFUSED} refused adds leave every change that happened in the audit trail`, async () => {
    const world = await startWorld();
    try {
      const { service } = world;
      // The changes that happened: adds, updates, deletes.
      const changes: string[] = [];
      for (let i = 0; i < 20; i += 1) {
        expect(
          (
            await service.call("POST", `${BASE}/connections?force=true`, {
              body: { alias: `real-${i}`, orchestratorUrl: ORCHESTRATOR, apiKey: `key-${i}` },
            })
          ).status,
        ).toBe(200);
        changes.push(`add real-${i}`);
      }
      for (let i = 0; i < 5; i += 1) {
        expect(
          (
            await service.call("PUT", `${BASE}/connections/real-${i}?force=true`, {
              body: { orchestratorUrl: `https://moved-${i}.example.net/` },
            })
          ).status,
        ).toBe(200);
        changes.push(`update real-${i}`);
      }
      for (let i = 15; i < 20; i += 1) {
        expect((await service.call("DELETE", `${BASE}/connections/real-${i}`)).status).toBe(204);
        changes.push(`delete real-${i}`);
      }

      // The flood: adds refused for an invalid body (each audited as a failed add), from many clients at once.
      const statuses = tally();
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          for (let i = next++; i < REFUSED; i = next++) {
            statuses.add(
              (
                await service.call("POST", `${BASE}/connections`, {
                  body: { alias: `flood-${i}`, orchestratorUrl: "not a url", apiKey: "k" },
                })
              ).status,
            );
          }
        }),
      );
      const floodSeconds = (performance.now() - started) / 1000;
      expect(statuses.statuses.get(400)).toBe(REFUSED);

      const entries: AuditPage["entries"][number][] = [];
      for (let before: string | null = ""; before !== null;) {
        const page: AuditPage = (
          await service.call(
            "GET",
            `${BASE}/audit?limit=1000${before === "" ? "" : `&before=${encodeURIComponent(before)}`}`,
          )
        ).json<AuditPage>();
        entries.push(...page.entries);
        before = page.next;
      }
      const kept = new Set(
        entries.filter((entry) => entry.outcome === "succeeded").map((entry) => `${entry.action} ${entry.alias}`),
      );
      expect(changes.filter((change) => !kept.has(change))).toEqual([]);
      const refusedKept = entries.filter((entry) => entry.outcome === "failed").length;
      expect(refusedKept).toBe(10_000); // SDWAN_AUDIT_MAX_ATTEMPTS's default: the oldest 100 attempts went, no change did
      await report(
        "audit-flood",
        `Last run: ${changes.length} changes (20 adds, 5 updates, 5 deletes), then ${REFUSED.toLocaleString("en-US")} refused adds from ${CLIENTS} clients in ${floodSeconds.toFixed(1)} s (${Math.round(REFUSED / floodSeconds)} req/s). ` +
          `After it the trail holds all ${changes.length} changes and the newest ${refusedKept.toLocaleString("en-US")} refused attempts (SDWAN_AUDIT_MAX_ATTEMPTS); no change was pushed out.`,
      );
    } finally {
      await world.close();
    }
  });
});
