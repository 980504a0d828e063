import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import { describe, expect, it } from "vitest";
import { ADMIN, BASE, makeDataDir, removeDir, report } from "./support.js";

const CRASHES = 3;
const WRITERS = 20;
const ORCHESTRATOR = "https://orchestrator.example.net/";

interface AuditPage {
  readonly entries: readonly { readonly action: string; readonly alias: string | null; readonly outcome: string }[];
  readonly next: string | null;
}

/** The aliases of every add the audit trail holds as succeeded, read a page at a time. */
const auditedAdds = async (service: ServiceProcess): Promise<Set<string>> => {
  const aliases = new Set<string>();
  for (let before: string | null = ""; before !== null;) {
    const page: AuditPage = (
      await service.call(
        "GET",
        `${BASE}/audit?limit=1000${before === "" ? "" : `&before=${encodeURIComponent(before)}`}`,
      )
    ).json<AuditPage>();
    for (const entry of page.entries)
      if (entry.action === "add" && entry.outcome === "succeeded" && entry.alias !== null) aliases.add(entry.alias);
    before = page.next;
  }
  return aliases;
};

describe("SIGKILL during a write storm", { timeout: 300_000 }, () => {
  it(`${CRASHES} times: no acknowledged write is lost nor missing from the audit trail, and the first write after the restart takes at most 1 s`, async () => {
    const dir = await makeDataDir();
    const acknowledged = new Set<string>();
    const firstWriteMs: number[] = [];
    try {
      for (let crash = 0; crash < CRASHES; crash += 1) {
        const service = await startServiceProcess({ SDWAN_DATA_DIR: dir, ...ADMIN });
        let stop = false;
        let written = 0;
        // Writers add (force: no orchestrator) until the kill; an add is acknowledged only by its 200.
        const writers = Array.from({ length: WRITERS }, async (_, writer) => {
          for (let i = 0; !stop; i += 1) {
            const alias = `k${crash}-w${writer}-${i}`;
            const reply = await service
              .call("POST", `${BASE}/connections?force=true`, {
                body: { alias, orchestratorUrl: ORCHESTRATOR, apiKey: `key-${alias}` },
              })
              .catch(() => undefined);
            if (reply?.status === 200) {
              acknowledged.add(alias);
              written += 1;
            }
          }
        });
        while (written < 200) await new Promise((resolve) => setTimeout(resolve, 5));
        await service.kill();
        stop = true;
        await Promise.all(writers);

        const restarted = await startServiceProcess({ SDWAN_DATA_DIR: dir, ...ADMIN });
        try {
          const started = performance.now();
          const first = await restarted.call("POST", `${BASE}/connections?force=true`, {
            body: { alias: `after-${crash}`, orchestratorUrl: ORCHESTRATOR, apiKey: "k" },
          });
          firstWriteMs.push(performance.now() - started);
          expect(first.status).toBe(200);
          acknowledged.add(`after-${crash}`);
          const stored = new Set(
            (await restarted.call("GET", `${BASE}/connections`)).json<{ alias: string }[]>().map(({ alias }) => alias),
          );
          expect([...acknowledged].filter((alias) => !stored.has(alias))).toEqual([]);
          // Each acknowledged change's entry was durable before its answer: the kill lost none.
          const audited = await auditedAdds(restarted);
          expect([...acknowledged].filter((alias) => !audited.has(alias))).toEqual([]);
        } finally {
          await restarted.stop();
        }
      }
      expect(Math.max(...firstWriteMs)).toBeLessThanOrEqual(1_000);
      await report(
        "crash",
        `Last run: ${CRASHES} SIGKILLs, each after 200 or more acknowledged adds from ${WRITERS} concurrent writers; ${acknowledged.size} acknowledged writes, none lost, and every one found in the audit trail after the restarts. First write after each restart: ${firstWriteMs.map((ms) => `${ms.toFixed(0)} ms`).join(", ")}.`,
      );
    } finally {
      await removeDir(dir);
    }
  });
});
