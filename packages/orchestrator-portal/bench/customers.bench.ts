/**
 * A partner with 10,000 enterprises: cold listing (client → simulator,
 * decode and map) beside the simulator's own time to serve the raw answer
 * and a raw fetch + JSON.parse of it (the baseline: target ≤ 1.3×), then
 * warm listing (core's customers cache), then 100 concurrent first requests
 * (must cause exactly one enterprises call). Then a partner with 50,000
 * enterprises, served by a simulator in a child process so that only this
 * process's memory is measured: peak heap growth of a cold listing ÷ the
 * answer's size (target ≤ 3×), beside the raw fetch + JSON.parse. Writes the
 * "orchestrator" section of docs/benchmarks.md.
 *
 *   pnpm --filter @sdwan-connections/orchestrator-portal bench
 */
import { loadavg } from "node:os";
import * as E from "fp-ts/lib/Either.js";
import nodeFetch from "node-fetch";
import {
  machineLine,
  markdownTable,
  measureMemory,
  median,
  percentile,
  sized,
  startSimulatorProcess,
  timeEach,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";
import { createCore, createInMemoryStorage } from "@sdwan-connections/core";
import { aConnection, createInMemoryConnectionRepository } from "@sdwan-connections/core/testing";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { createPortalOrchestrator } from "../src/index.js";

const ENTERPRISES = sized(10_000, 500);
const HUGE_ENTERPRISES = sized(50_000, 1_000);
const COLD_RUNS = sized(7, 1);
const HUGE_RUNS = sized(3, 1);
const WARM_RUNS = sized(2_000, 20);
const CONCURRENT = 100;
const KEY = "generated-partner-key-1";
const ENTERPRISES_METHOD = "enterpriseProxy/getEnterpriseProxyEnterprises";

const gc = (globalThis as { gc?: () => void }).gc;
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);
const ms = (value: number): string => value.toFixed(value < 1 ? 3 : 1);

type Measured<A> = Awaited<ReturnType<typeof measureMemory<A>>>;

/** The orchestrator's answer as any client would take it: fetched (node-fetch, keep-alive) and JSON.parse'd. Returns its size in bytes. */
const rawFetchAndParse = async (simulatorUrl: string): Promise<number> => {
  const response = await nodeFetch(`${simulatorUrl}portal/rest/${ENTERPRISES_METHOD}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", authorization: `Token ${KEY}` },
    body: '{"enterpriseProxyId":10}',
  });
  const text = await response.text();
  const parsed = JSON.parse(text) as unknown[];
  if (parsed.length === 0) throw new Error("empty answer");
  return Buffer.byteLength(text);
};

const ratio = (value: number, base: number): string => `${(value / base).toFixed(2)}×`;
const range = (values: readonly number[], format: (value: number) => string): string =>
  `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;

/**
 * 50,000 enterprises: cold listings through a fresh service each, interleaved
 * with raw fetches + JSON.parse of the same answer; one of each first, unmeasured
 * (the simulator serializes its answer on the first call).
 */
const hugePartner = async (): Promise<string> => {
  const simulator = await startSimulatorProcess(HUGE_ENTERPRISES);
  const client = createPortalOrchestrator({ allowedHosts: undefined, timeoutMs: 60_000 });
  const store = createInMemoryConnectionRepository();
  await store.insert(aConnection({ alias: "huge-partner", orchestratorUrl: simulator.url, apiKey: KEY }))();
  const coldListing = async () => {
    const service = createCore({
      storage: { ...createInMemoryStorage(), repository: store },
      orchestrator: client,
      customersCacheTtlMs: 600_000,
    });
    try {
      const listed = await service.connections.customers("huge-partner")();
      if (E.isLeft(listed) || listed.right.count !== HUGE_ENTERPRISES)
        throw new Error("50,000-enterprise cold listing failed");
      return listed.right.count;
    } finally {
      service.dispose();
    }
  };
  try {
    const answerBytes = await rawFetchAndParse(simulator.url);
    await coldListing();
    const raw: Measured<number>[] = [];
    const cold: Measured<number>[] = [];
    for (let i = 0; i < HUGE_RUNS; i += 1) {
      raw.push(await measureMemory(() => rawFetchAndParse(simulator.url)));
      cold.push(await measureMemory(coldListing));
    }
    const row = (label: string, runs: readonly Measured<number>[]) => [
      label,
      range(
        runs.map((r) => r.durationMs),
        (v) => v.toFixed(0),
      ),
      range(
        runs.map((r) => r.heapGrowth),
        mib,
      ),
      range(
        runs.map((r) => r.heapGrowth / answerBytes),
        (v) => `${v.toFixed(2)}×`,
      ),
      range(
        runs.map((r) => r.buffersGrowth),
        mib,
      ),
      mib(Math.max(...runs.map((r) => r.peakRss))),
    ];
    const coldRatio = median(cold.map((r) => r.heapGrowth)) / answerBytes;
    return `### A partner with ${HUGE_ENTERPRISES.toLocaleString("en-US")} enterprises (${mib(answerBytes)} MiB answer)

The simulator runs in a child process (\`--generate 1:${HUGE_ENTERPRISES}\`), so only this process's memory is counted. ${HUGE_RUNS} runs of each,
interleaved, after one unmeasured run of each; median (min–max). Heap growth is the peak of \`heapUsed\` above its value before the run,
sampled every 2 ms and at the end${gc === undefined ? " (run without --expose-gc: growth includes garbage not yet collected)" : ", after a forced GC"}; array buffers
(the answer's bytes, outside the heap) likewise.

${markdownTable(
  ["", "ms", "peak heap growth (MiB)", "÷ answer size", "peak array-buffer growth (MiB)", "peak RSS (MiB)"],
  [row("raw fetch + JSON.parse (baseline)", raw), row("**cold listing**: identify + list + the customers' JSON", cold)],
)}

Cold listing's peak heap growth: **${coldRatio.toFixed(2)}× the answer's size** (target ≤ 3×; the baseline holds the text and its parse: ${(median(raw.map((r) => r.heapGrowth)) / answerBytes).toFixed(2)}×).`;
  } finally {
    client.close();
    simulator.child.kill();
  }
};

const simulator = await startOrchestratorSimulator({
  generate: { partners: 1, enterprisesPerPartner: ENTERPRISES, customerKeysPerPartner: 0, seed: 7 },
  record: false,
});
const orchestrator = createPortalOrchestrator({ allowedHosts: undefined });
const repository = createInMemoryConnectionRepository();
const connection = aConnection({ alias: "big-partner", orchestratorUrl: simulator.url, apiKey: KEY });
await repository.insert(connection)();
const newService = () =>
  createCore({
    storage: { ...createInMemoryStorage(), repository },
    orchestrator,
    customersCacheTtlMs: 600_000,
  });

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
    rawBytes = Buffer.byteLength(await response.text());
    serveInside.push(simulator.calls.lastServeMs[ENTERPRISES_METHOD] ?? Number.NaN);
  });

  // Cold: a fresh service (empty cache) each run: identify + list + the customers' JSON written from the answer, each after a raw fetch + JSON.parse of the same answer.
  await rawFetchAndParse(simulator.url);
  const rawParse = [];
  const cold = [];
  for (let i = 0; i < COLD_RUNS; i += 1) {
    rawParse.push((await measureMemory(() => rawFetchAndParse(simulator.url))).durationMs);
    const service = newService();
    const run = await measureMemory(() => service.connections.customers("big-partner")());
    if (E.isLeft(run.result) || run.result.right.count !== ENTERPRISES) throw new Error("cold listing failed");
    cold.push(run);
    service.dispose();
  }

  // Warm: the same service, answered by core's cache.
  const warmService = newService();
  await warmService.connections.customers("big-partner")();
  simulator.resetCalls();
  const warm = await timeEach(WARM_RUNS, () => warmService.connections.customers("big-partner")());
  const warmCalls = simulator.calls.total;
  warmService.dispose();

  // 100 concurrent first requests on an empty cache: one identify, one enterprises call.
  const flightService = newService();
  simulator.resetCalls();
  const flight = await measureMemory(() =>
    Promise.all(Array.from({ length: CONCURRENT }, () => flightService.connections.customers("big-partner")())),
  );
  const allOk = flight.result.every((answer) => E.isRight(answer) && answer.right.count === ENTERPRISES);
  const enterprisesCalls = simulator.calls.byMethod[ENTERPRISES_METHOD];
  const identifyCalls = simulator.calls.byMethod["enterpriseProxy/getEnterpriseProxyProperty"];
  flightService.dispose();
  if (!allOk || enterprisesCalls !== 1)
    throw new Error(`single flight broken: ${enterprisesCalls} enterprises calls, all ok: ${allOk}`);

  const coldTimes = cold.map((run) => run.durationMs);
  const huge = await hugePartner();
  const markdown = `## Orchestrator: listing a partner with ${ENTERPRISES.toLocaleString("en-US")} customers

\`pnpm --filter @sdwan-connections/orchestrator-portal bench\` (\`packages/orchestrator-portal/bench/customers.bench.ts\`): core's
\`createCore\` with the in-memory repository and the orchestrator-portal client, talking over loopback HTTP to the
orchestrator simulator generating one partner with ${ENTERPRISES.toLocaleString("en-US")} enterprises (answer: ${mib(rawBytes)} MiB of JSON).
${await machineLine()}. 1-minute load average at the end: ${loadavg()[0]?.toFixed(1)} (the machine is shared; figures scale with it). Median of ${COLD_RUNS} cold runs,
each after a raw fetch + JSON.parse of the same answer${gc === undefined ? " (run without --expose-gc, so memory deltas include garbage not yet collected)" : ""}.

${markdownTable(
  ["Measure", "Median", "Min", "Max"],
  [
    [
      "Simulator serving the raw answer, inside the server (ms)",
      ms(median(serveInside)),
      ms(Math.min(...serveInside)),
      ms(Math.max(...serveInside)),
    ],
    [
      "Raw fetch of the same answer, no parsing or mapping (ms)",
      ms(median(raw)),
      ms(Math.min(...raw)),
      ms(Math.max(...raw)),
    ],
    [
      "Raw fetch + JSON.parse of the same answer: the cold baseline (ms)",
      ms(median(rawParse)),
      ms(Math.min(...rawParse)),
      ms(Math.max(...rawParse)),
    ],
    [
      "**Cold** listing: identify + list + the customers' JSON (ms)",
      ms(median(coldTimes)),
      ms(Math.min(...coldTimes)),
      ms(Math.max(...coldTimes)),
    ],
    [
      "Cold listing: peak RSS growth (MiB)",
      mib(median(cold.map((r) => r.rssGrowth))),
      mib(Math.min(...cold.map((r) => r.rssGrowth))),
      mib(Math.max(...cold.map((r) => r.rssGrowth))),
    ],
    [
      "Cold listing: peak heap growth (MiB)",
      mib(median(cold.map((r) => r.heapGrowth))),
      mib(Math.min(...cold.map((r) => r.heapGrowth))),
      mib(Math.max(...cold.map((r) => r.heapGrowth))),
    ],
    [
      `**Warm** listing from core's cache, ${WARM_RUNS} calls (ms)`,
      ms(median(warm)),
      ms(Math.min(...warm)),
      `${ms(Math.max(...warm))} (p99 ${ms(percentile(warm, 0.99))})`,
    ],
  ],
)}

The simulator serializes a partner's answer once and reuses the string, so its first serve (the max) includes \`JSON.stringify\`;
the raw fetch is what any client pays for the bytes alone; the cold listing adds identification and the customers' JSON, written
straight from the answer's bytes (\`customers-json/scanner.ts\`: checked as strictly as \`JSON.parse\` and io-ts would, no values built). Until
2026-11-24 the listing built the values instead (\`JSON.parse\`, decode, map: 1.30× here), and the REST driver then serialized them;
writing the JSON here costs this row more (the values, when a caller wants them, are parsed from it) and saves the service more
(the http-express section: the cold request from 2.06× to the figure there; 50,000 enterprises from 2.62× to under 0.3× the answer in heap).
**Cold listing ÷ raw fetch + JSON.parse: ${ratio(median(coldTimes), median(rawParse))}** (medians; target ≤ 1.3×).
Peak process RSS during the cold runs: ${mib(Math.max(...cold.map((r) => r.peakRss)))} MiB. Warm calls made ${warmCalls} orchestrator calls.

**${CONCURRENT} concurrent first requests** for the partner (empty cache): ${enterprisesCalls} \`getEnterpriseProxyEnterprises\` call and
${identifyCalls} \`getEnterpriseProxyProperty\` call reached the simulator; all ${CONCURRENT} callers got the ${ENTERPRISES.toLocaleString("en-US")} customers
in ${ms(flight.durationMs)} ms (peak heap growth ${mib(flight.heapGrowth)} MiB: one answer, shared).

${huge}`;

  await writeBenchmarkSection("orchestrator", markdown);
  process.stdout.write(`${markdown}\n`);
} finally {
  orchestrator.close();
  await simulator.stop();
}
