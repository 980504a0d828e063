/**
 * A partner with 10,000 enterprises: cold listing (client → simulator,
 * decode and map) beside the simulator's own time to serve the raw answer,
 * then warm listing (core's customers cache), then 100 concurrent first
 * requests (must cause exactly one enterprises call). Writes the
 * "orchestrator" section of docs/benchmarks.md.
 *
 *   pnpm --filter @sdwan-connections/orchestrator-portal bench
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import * as E from "fp-ts/lib/Either.js";
import nodeFetch from "node-fetch";
import { machineLine, markdownTable, median, percentile, timeEach, writeBenchmarkSection } from "@sdwan-connections/bench-kit";
import { createConnectionService } from "@sdwan-connections/core";
import { aConnection, createInMemoryConnectionRepository } from "@sdwan-connections/core/testing";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { createPortalOrchestrator } from "../src/index.js";

const ENTERPRISES = 10_000;
const COLD_RUNS = 7;
const WARM_RUNS = 2_000;
const CONCURRENT = 100;
const KEY = "generated-partner-key-1";
const ENTERPRISES_METHOD = "enterpriseProxy/getEnterpriseProxyEnterprises";

const gc = (globalThis as { gc?: () => void }).gc;
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
const ms = (value: number): string => value.toFixed(value < 1 ? 3 : 1);

/** Runs `work` while sampling memory every 2 ms; returns its duration and the peaks above the starting point. */
const measure = async <A>(work: () => Promise<A>) => {
  gc?.();
  const before = process.memoryUsage();
  let peakRss = before.rss;
  let peakHeap = before.heapUsed;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakRss = Math.max(peakRss, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  }, 2);
  const started = performance.now();
  const result = await work();
  const durationMs = performance.now() - started;
  clearInterval(sampler);
  const after = process.memoryUsage();
  peakRss = Math.max(peakRss, after.rss);
  peakHeap = Math.max(peakHeap, after.heapUsed);
  return { result, durationMs, rssDelta: peakRss - before.rss, heapDelta: peakHeap - before.heapUsed, peakRss };
};

const simulator = await startOrchestratorSimulator({
  generate: { partners: 1, enterprisesPerPartner: ENTERPRISES, customerKeysPerPartner: 0, seed: 7 },
  record: false,
});
const orchestrator = createPortalOrchestrator({ allowedHosts: undefined });
const repository = createInMemoryConnectionRepository();
const connection = aConnection({ alias: "big-partner", orchestratorUrl: simulator.url, apiKey: KEY });
await repository.insert(connection)();
const newService = () => createConnectionService({ repository, orchestrator, customersCacheTtlMs: 600_000 });

try {
  // The simulator's raw answer, fetched over the same kind of keep-alive connection, neither parsed nor mapped.
  const rawUrl = `${simulator.url}portal/rest/${ENTERPRISES_METHOD}`;
  let rawBytes = 0;
  const serveInside: number[] = [];
  const raw = await timeEach(COLD_RUNS, async () => {
    const response = await nodeFetch(rawUrl, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Token ${KEY}` },
      body: '{"enterpriseProxyId":10}',
    });
    rawBytes = (await response.text()).length;
    serveInside.push(simulator.calls.lastServeMs[ENTERPRISES_METHOD] ?? Number.NaN);
  });

  // Cold: a fresh service (empty cache) each run: identify + list + decode + map.
  const cold = [];
  for (let i = 0; i < COLD_RUNS; i += 1) {
    const service = newService();
    const run = await measure(() => service.listPartnerCustomers("big-partner")());
    if (E.isLeft(run.result) || run.result.right.length !== ENTERPRISES) throw new Error("cold listing failed");
    cold.push(run);
    service.dispose();
  }

  // Warm: the same service, answered by core's cache.
  const warmService = newService();
  await warmService.listPartnerCustomers("big-partner")();
  simulator.resetCalls();
  const warm = await timeEach(WARM_RUNS, () => warmService.listPartnerCustomers("big-partner")());
  const warmCalls = simulator.calls.total;
  warmService.dispose();

  // 100 concurrent first requests on an empty cache: one identify, one enterprises call.
  const flightService = newService();
  simulator.resetCalls();
  const flight = await measure(() => Promise.all(Array.from({ length: CONCURRENT }, () => flightService.listPartnerCustomers("big-partner")())));
  const allOk = flight.result.every((answer) => E.isRight(answer) && answer.right.length === ENTERPRISES);
  const enterprisesCalls = simulator.calls.byMethod[ENTERPRISES_METHOD];
  const identifyCalls = simulator.calls.byMethod["enterpriseProxy/getEnterpriseProxyProperty"];
  flightService.dispose();
  if (!allOk || enterprisesCalls !== 1) throw new Error(`single flight broken: ${enterprisesCalls} enterprises calls, all ok: ${allOk}`);

  const coldTimes = cold.map((run) => run.durationMs);
  const markdown = `## Orchestrator: listing a partner with ${ENTERPRISES.toLocaleString("en-US")} customers

\`pnpm --filter @sdwan-connections/orchestrator-portal bench\` (\`packages/orchestrator-portal/bench/customers.bench.ts\`): core's
\`createConnectionService\` with the in-memory repository and the orchestrator-portal client, talking over loopback HTTP to the
orchestrator simulator generating one partner with ${ENTERPRISES.toLocaleString("en-US")} enterprises (answer: ${mib(rawBytes)} MiB of JSON).
${await machineLine()}. 1-minute load average at the end: ${loadavg()[0]?.toFixed(1)} (the machine is shared; figures scale with it). Median of ${COLD_RUNS} cold runs${gc === undefined ? " (run without --expose-gc, so memory deltas include garbage not yet collected)" : ""}.

${markdownTable(
  ["Measure", "Median", "Min", "Max"],
  [
    ["Simulator serving the raw answer, inside the server (ms)", ms(median(serveInside)), ms(Math.min(...serveInside)), ms(Math.max(...serveInside))],
    ["Raw fetch of the same answer, no parsing or mapping (ms)", ms(median(raw)), ms(Math.min(...raw)), ms(Math.max(...raw))],
    ["**Cold** listing: identify + list + decode + map (ms)", ms(median(coldTimes)), ms(Math.min(...coldTimes)), ms(Math.max(...coldTimes))],
    ["Cold listing: peak RSS growth (MiB)", mib(median(cold.map((r) => r.rssDelta))), mib(Math.min(...cold.map((r) => r.rssDelta))), mib(Math.max(...cold.map((r) => r.rssDelta)))],
    ["Cold listing: peak heap growth (MiB)", mib(median(cold.map((r) => r.heapDelta))), mib(Math.min(...cold.map((r) => r.heapDelta))), mib(Math.max(...cold.map((r) => r.heapDelta)))],
    [`**Warm** listing from core's cache, ${WARM_RUNS} calls (ms)`, ms(median(warm)), ms(Math.min(...warm)), `${ms(Math.max(...warm))} (p99 ${ms(percentile(warm, 0.99))})`],
  ],
)}

The simulator serializes a partner's answer once and reuses the string, so its first serve (the max) includes \`JSON.stringify\`;
the raw fetch is what any client pays for the bytes alone, the cold listing adds identification, \`JSON.parse\`, io-ts decoding and mapping.
Peak process RSS during the cold runs: ${mib(Math.max(...cold.map((r) => r.peakRss)))} MiB. Warm calls made ${warmCalls} orchestrator calls.

**${CONCURRENT} concurrent first requests** for the partner (empty cache): ${enterprisesCalls} \`getEnterpriseProxyEnterprises\` call and
${identifyCalls} \`getEnterpriseProxyProperty\` call reached the simulator; all ${CONCURRENT} callers got the ${ENTERPRISES.toLocaleString("en-US")} customers
in ${ms(flight.durationMs)} ms (peak heap growth ${mib(flight.heapDelta)} MiB: one answer, shared).`;

  await writeBenchmarkSection("orchestrator", markdown);
  process.stdout.write(`${markdown}\n`);
} finally {
  orchestrator.close();
  await simulator.stop();
}
