/**
 * Validate latency against an orchestrator that takes 100 ms per call, for a
 * partner key and a customer key, beside one raw call from the same run (the
 * floor). Identification asks both checks at once, so each should cost about
 * one call: target at most 1.2× the raw call. Writes the "validate" section of
 * docs/benchmarks.md.
 *
 *   pnpm --filter @sdwan-connections/orchestrator-portal bench
 */
import { Agent } from "node:http";
import nodeFetch from "node-fetch";
import { machineLine, markdownTable, median, percentile, timeEach, writeBenchmarkSection } from "@sdwan-connections/bench-kit";
import { createConnectionService } from "@sdwan-connections/core";
import { aConnection, createInMemoryConnectionRepository } from "@sdwan-connections/core/testing";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { createPortalOrchestrator } from "../src/index.js";

const CALL_MS = 100;
const WARMUP = 3;
const RUNS = 30;
const TARGET = 1.2;
const PARTNER_KEY = "sample-partner-key-1";
const CUSTOMER_KEY = "sample-customer-key-1-1";
// What the previous, sequential client measured with this benchmark on this machine (commit e4caa28).
const BEFORE = { partner: 102.6, customer: 205.7 };

const simulator = await startOrchestratorSimulator({ record: false });
simulator.setFault("*", { kind: "delay", ms: CALL_MS });
const orchestrator = createPortalOrchestrator({ allowedHosts: undefined });
const repository = createInMemoryConnectionRepository();
await repository.insert(aConnection({ alias: "partner", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY }))();
await repository.insert(aConnection({ alias: "customer", orchestratorUrl: simulator.url, apiKey: CUSTOMER_KEY }))();
const service = createConnectionService({ repository, orchestrator });

// The floor: one portal call, as the client makes it (keep-alive, JSON body, token).
const agent = new Agent({ keepAlive: true });
const rawCall = async () => {
  const response = await nodeFetch(`${simulator.url}portal/rest/enterpriseProxy/getEnterpriseProxyProperty`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Token ${PARTNER_KEY}` },
    body: "{}",
    agent,
  });
  await response.text();
};
const validate = (alias: string) => async () => {
  const result = await service.validateConnection(alias)();
  if (result._tag === "Left" || !result.right.valid) throw new Error(`${alias} did not validate`);
};

const measure = async (operation: () => Promise<unknown>) => {
  await timeEach(WARMUP, operation);
  return timeEach(RUNS, operation);
};
const raw = await measure(rawCall);
const partner = await measure(validate("partner"));
const customer = await measure(validate("customer"));
orchestrator.close();
agent.destroy();
await simulator.stop();

const floor = median(raw);
const row = (name: string, samples: readonly number[], before?: number) => {
  const ratio = median(samples) / floor;
  return [
    name,
    median(samples).toFixed(1),
    percentile(samples, 0.95).toFixed(1),
    before === undefined ? "" : before.toFixed(1),
    `${ratio.toFixed(2)}×`,
    before === undefined ? "(baseline)" : ratio <= TARGET ? `pass (≤ ${TARGET}×)` : `FAIL (> ${TARGET}×)`,
  ];
};
const table = markdownTable(
  ["Measure", "Median ms", "p95 ms", "Before, median ms", "Ratio to one call", "Verdict"],
  [row("one raw call (baseline)", raw), row("validate a partner key", partner, BEFORE.partner), row("validate a customer key", customer, BEFORE.customer)],
);
const section = `## Validate against a slow orchestrator

\`bench/validate.bench.ts\` (orchestrator-portal): the simulator delays every call by ${CALL_MS} ms; ${RUNS} runs each after ${WARMUP} warm-up runs, through core's
\`validateConnection\` and the portal client. The baseline is one raw call from the same run. *Before* is the previous, sequential
client (commit e4caa28) measured with this same benchmark on this machine: a customer key paid two round trips.

${table}

${await machineLine()}.`;
await writeBenchmarkSection("validate", section);
process.stdout.write(`${section}\n`);
