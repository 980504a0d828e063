import { startServiceProcess } from "@sdwan-connections/bench-kit";
import { describe, expect, it } from "vitest";
import { ADMIN, BASE, makeDataDir, removeDir, report } from "./support.js";

const CRASHES = 3;
const WRITERS = 20;
const ORCHESTRATOR = "https://orchestrator.example.net/";

describe("SIGKILL during a write storm", { timeout: 300_000 }, () => {
  it(`${CRASHES} times: no acknowledged write is lost, and the first write after the restart takes at most 1 s`, async () => {
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
            const reply = await service.call("POST", `${BASE}/connections?force=true`, { body: { alias, orchestratorUrl: ORCHESTRATOR, apiKey: `key-${alias}` } }).catch(() => undefined);
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
          const first = await restarted.call("POST", `${BASE}/connections?force=true`, { body: { alias: `after-${crash}`, orchestratorUrl: ORCHESTRATOR, apiKey: "k" } });
          firstWriteMs.push(performance.now() - started);
          expect(first.status).toBe(200);
          acknowledged.add(`after-${crash}`);
          const stored = new Set((await restarted.call("GET", `${BASE}/connections`)).json<{ alias: string }[]>().map(({ alias }) => alias));
          expect([...acknowledged].filter((alias) => !stored.has(alias))).toEqual([]);
        } finally {
          await restarted.stop();
        }
      }
      expect(Math.max(...firstWriteMs)).toBeLessThanOrEqual(1_000);
      await report(
        "crash",
        `Last run: ${CRASHES} SIGKILLs, each after 200 or more acknowledged adds from ${WRITERS} concurrent writers; ${acknowledged.size} acknowledged writes, none lost. First write after each restart: ${firstWriteMs.map((ms) => `${ms.toFixed(0)} ms`).join(", ")}.`,
      );
    } finally {
      await removeDir(dir);
    }
  });
});
