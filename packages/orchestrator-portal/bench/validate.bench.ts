/**
 * Validate latency against an orchestrator that takes 100 ms per call, for a
 * partner key and a customer key, beside one raw call from the same run (the
 * floor). Identification asks both checks at once, so each should cost about
 * one call: target at most 1.2× the raw call. Then a partner's customers
 * with the customers cache off: with the identity the last identification
 * learned, one call (target 1.2×); with an unknown key, identification then
 * the listing (target 2.2×). Writes the "validate" section of
 * docs/benchmarks.md.
 *
 *   pnpm --filter @sdwan-connections/orchestrator-portal bench
 */
import { Agent } from "node:http";
import nodeFetch from "node-fetch";
import {
  machineLine,
  markdownTable,
  median,
  percentile,
  sized,
  timeEach,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";
import { createCore, createInMemoryStorage } from "@sdwan-connections/core";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { createPortalOrchestrator } from "../src/index.js";

const CALL_MS = 100;
const WARMUP = sized(3, 1);
const RUNS = sized(30, 3);
const ONE_CALL = 1.2;
const TWO_CALLS = 2.2;
const PARTNER_KEY = "sample-partner-key-1";
const CUSTOMER_KEY = "sample-customer-key-1-1";
/**
 * Medians (ms) from an earlier run of this same benchmark against the previous,
 * sequential client (commit e4caa28, checked out in a temporary worktree), on
 * the same machine. Not measured by this run: update them by hand.
 */
const BEFORE = { date: "2026-11-22", baseline: 102.9, partner: 103.1, customer: 205.5 };

const simulator = await startOrchestratorSimulator({ host: "127.0.0.1", record: false });
simulator.setFault("*", { kind: "delay", ms: CALL_MS });
const orchestrator = createPortalOrchestrator({ allowedHosts: undefined });
const storage = createInMemoryStorage();
// The customers cache off, so that every listing asks the orchestrator.
const service = createCore({ storage, orchestrator, customersCacheTtlMs: 0 });
// Added with force (stored without asking the orchestrator), as `?force` does.
for (const [alias, apiKey] of [
  ["partner", PARTNER_KEY],
  ["customer", CUSTOMER_KEY],
] as const) {
  const added = await service.connections.add({ alias, orchestratorUrl: simulator.url, apiKey }, { force: true })();
  if (added._tag === "Left") throw new Error(`could not add ${alias}: ${JSON.stringify(added.left)}`);
}

// The floor: one portal call, as the client makes it (keep-alive, JSON body, token).
const agent = new Agent({ keepAlive: true });
const rawCall = async () => {
  const response = await nodeFetch(`${simulator.url}portal/rest/enterpriseProxy/getEnterpriseProxyProperty`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", authorization: `Token ${PARTNER_KEY}` },
    body: "{}",
    agent,
  });
  await response.text();
};
/** Validates `alias` and checks that the key was recognised as `kind`. */
const validate = (alias: string, kind: "partner" | "customer") => async () => {
  const result = await service.connections.validate(alias)();
  if (result._tag === "Left" || !result.right.valid || result.right.type !== kind)
    throw new Error(`${alias} did not validate as a ${kind}: ${JSON.stringify(result)}`);
};

/** The customers of the partner connection through `through`; all of them must come back. */
const customersThrough = async (through: typeof service) => {
  const result = await through.connections.customers("partner")();
  if (result._tag === "Left" || result.right.count === 0) throw new Error(`no customers: ${JSON.stringify(result)}`);
};
// A new service each time knows no identity: the key is identified, then listed.
const customersOfAnUnknownKey = async () => {
  const fresh = createCore({ storage, orchestrator, customersCacheTtlMs: 0 });
  try {
    await customersThrough(fresh);
  } finally {
    await fresh.dispose();
  }
};

const measure = async (operation: () => Promise<unknown>) => {
  await timeEach(WARMUP, operation);
  return timeEach(RUNS, operation);
};
// All three in the same run, one after another, so they share the machine's load.
const { raw, partner, customer, known, unknown } = await (async () => {
  try {
    return {
      raw: await measure(rawCall),
      partner: await measure(validate("partner", "partner")),
      customer: await measure(validate("customer", "customer")),
      // The validations above taught `service` the partner's identity.
      known: await measure(() => customersThrough(service)),
      unknown: await measure(customersOfAnUnknownKey),
    };
  } finally {
    orchestrator.close();
    agent.destroy();
    await simulator.stop();
  }
})();

const floor = median(raw);
const verdicts: boolean[] = [];
const row = (name: string, samples: readonly number[], target?: number) => {
  const ratio = median(samples) / floor;
  if (target !== undefined) verdicts.push(ratio <= target);
  return [
    name,
    median(samples).toFixed(1),
    percentile(samples, 0.95).toFixed(1),
    `${ratio.toFixed(2)}×`,
    target === undefined ? "(baseline)" : ratio <= target ? `pass (≤ ${target}×)` : `FAIL (> ${target}×)`,
  ];
};
const table = markdownTable(
  ["Measure", "Median ms", "p95 ms", "Median ÷ baseline median", "Verdict"],
  [
    row("one raw call (baseline)", raw),
    row("validate a partner key", partner, ONE_CALL),
    row("validate a customer key", customer, ONE_CALL),
    row("customers of a partner whose identity is known (one call)", known, ONE_CALL),
    row("customers of a partner key not known yet (identify, then list)", unknown, TWO_CALLS),
  ],
);
const section = `## Validate against a slow orchestrator

\`bench/validate.bench.ts\` (orchestrator-portal): the simulator delays every call by ${CALL_MS} ms; ${RUNS} runs each after ${WARMUP} warm-up runs, through core's
\`validateConnection\` and the portal client (identification asks the partner and the customer checks at once), then core's
\`listPartnerCustomers\` with the customers cache off (${simulator.data.partners[0]?.enterprises.length ?? 0} customers): for a key whose identity the last identification
remembered it lists at once; a key not known yet (a new service each run) is identified first. The baseline is one raw
\`getEnterpriseProxyProperty\` POST from the same run, with node-fetch over a keep-alive agent. Targets: each validation's and a
known partner's customers' median at most ${ONE_CALL}× the baseline median, an unknown key's customers at most ${TWO_CALLS}×:
**${verdicts.every(Boolean) ? "pass" : "FAIL"}**.

${table}

before (commit e4caa28, same machine, same benchmark): partner ${BEFORE.partner.toFixed(1)} ms, customer ${BEFORE.customer.toFixed(1)} ms (medians from a run on ${BEFORE.date} against a baseline of ${BEFORE.baseline.toFixed(1)} ms, not this run; the old client asked the two checks one after the other). Before the identity was remembered (issue 21), every
listing of a partner identified its key first: 210 ms against 102 ms for one call (not this run).

${await machineLine()}.`;
await writeBenchmarkSection("validate", section);
process.stdout.write(`${section}\n`);
