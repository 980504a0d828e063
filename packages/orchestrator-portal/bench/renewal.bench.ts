/**
 * A key renewal round (SPEC §12) over many due customer connections, against the same orchestrator calls made alone
 * (identify the key, refresh it, identify the new key: what a renewal must ask), both through the portal client
 * against the simulator, four at a time, interleaved A/B in one run. Target: the round's median at most 2× the
 * calls' median. Writes the "renewal" section of docs/benchmarks.md.
 *
 *   node --import tsx --conditions=sdwan-source bench/renewal.bench.ts   (SDWAN_BENCH_SMOKE=1 for the smoke size)
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { machineLine, markdownTable, median, sized, writeBenchmarkSection } from "@sdwan-connections/bench-kit";
import { ApiKey, createCore, createInMemoryStorage, type OrchestratorUrl } from "@sdwan-connections/core";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import * as E from "fp-ts/lib/Either.js";
import { createPortalOrchestrator } from "../src/index.js";

const CONNECTIONS = sized(1000, 50);
const RUNS = sized(5, 1);
const TARGET = 2;
const KEY = "sample-customer-key-1-1";
const CONCURRENCY = 4;

// The refreshed key's predecessor keeps working (the simulator's default), so every connection may hold the same key.
const simulator = await startOrchestratorSimulator({ host: "127.0.0.1", record: false });
const orchestrator = createPortalOrchestrator({ allowedHosts: undefined });
const url = simulator.url as OrchestratorUrl;
const soon = new Date(Date.now() + 5 * 24 * 3600 * 1000).toISOString();

/** A: a service over a new store with `CONNECTIONS` due connections; the round timed alone. */
const round = async (): Promise<number> => {
  const service = createCore({
    storage: createInMemoryStorage(),
    orchestrator,
    health: { intervalMs: 3_600_000 },
  });
  for (let i = 0; i < CONNECTIONS; i += 1) {
    const body = { alias: `c${i}`, orchestratorUrl: url, apiKey: KEY, apiKeyExpiresAt: soon, keyRenewal: "auto" };
    if (E.isLeft(await service.connections.add(body, { force: true })())) throw new Error("could not add");
  }
  const started = performance.now();
  await service.health.keyRenewal?.round();
  const took = performance.now() - started;
  const renewed = (await service.audit.list({ limit: "1000" })()) as E.Either<
    unknown,
    { entries: { action: string }[] }
  >;
  const count = E.isRight(renewed) ? renewed.right.entries.filter((entry) => entry.action === "key-renew").length : 0;
  if (count !== Math.min(CONNECTIONS, 1000)) throw new Error(`renewed ${count} of ${CONNECTIONS}`);
  await service.dispose();
  return took;
};

/** B: the calls alone, as many, as many at once. */
const calls = async (): Promise<number> => {
  const target = { orchestratorUrl: url, apiKey: ApiKey.unsafeFrom(KEY) };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (; next < CONNECTIONS;) {
        next += 1;
        if (E.isLeft(await orchestrator.identify(target)())) throw new Error("identify");
        const key = await orchestrator.refreshApiToken(target)();
        if (E.isLeft(key)) throw new Error("refresh");
        if (E.isLeft(await orchestrator.identify({ orchestratorUrl: url, apiKey: key.right })()))
          throw new Error("new");
      }
    }),
  );
  return performance.now() - started;
};

const rounds: number[] = [];
const alone: number[] = [];
const load: number[] = [];
try {
  await calls(); // warm-up
  for (let run = 0; run < RUNS; run += 1) {
    load.push(loadavg()[0] ?? 0);
    rounds.push(await round());
    alone.push(await calls());
  }
} finally {
  orchestrator.close();
  await simulator.stop();
}

const ratio = median(rounds) / median(alone);
const section = `## Key renewal round

\`bench/renewal.bench.ts\` (orchestrator-portal): one renewal round (core's \`health.keyRenewal.round()\`, in-memory store) over
${CONNECTIONS} customer connections all due (\`keyRenewal: auto\`, expiry declared in 5 days), against the same orchestrator
calls alone (identify, refresh, identify the new key; ${CONCURRENCY} at once, as the round), through the portal client and the
simulator on loopback, interleaved A/B, ${RUNS} run(s). Every connection holds the same key (the simulator keeps a
refreshed key's predecessor working), so the round's identity memory identifies the old key once, not per connection: the
round makes about one call fewer per connection than B. Target: round ≤ ${TARGET}× the calls alone: **${ratio <= TARGET ? "pass" : "FAIL"}** (${ratio.toFixed(2)}×).

${markdownTable(
  ["Measure", "Median ms", "Per connection ms"],
  [
    ["renewal round (A)", median(rounds).toFixed(0), (median(rounds) / CONNECTIONS).toFixed(2)],
    ["the orchestrator calls alone (B)", median(alone).toFixed(0), (median(alone) / CONNECTIONS).toFixed(2)],
  ],
)}

Load average (1 min) at each run: ${load.map((value) => value.toFixed(2)).join(", ")}. ${await machineLine()}.`;
await writeBenchmarkSection("renewal", section);
process.stdout.write(`${section}\n`);
