/**
 * `pnpm bench:webhooks`: what one webhook costs an add. The same adds (through the use cases, on the embedded
 * store, each acknowledged once durable) with no webhook, and with one webhook configured and its relay
 * delivering to a loopback receiver meanwhile: interleaved rounds, the medians and their ratio (target ≤ 1.2×).
 * Results go to docs/benchmarks.md (section "webhooks").
 */
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { machineLine, markdownTable, median, writeBenchmarkSection } from "@sdwan-connections/bench-kit";
import { loadConfig, openService } from "@sdwan-connections/composition";
import { createInMemoryOrchestrator } from "@sdwan-connections/core/testing";
import * as E from "fp-ts/lib/Either.js";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? 5);
const ADDS = Number(process.env["BENCH_ADDS"] ?? 1000);
// Adds in flight at once, as a service's concurrent requests.
const CONCURRENCY = 10;
const KEY = "bench-partner-key-1";

const orchestrator = () =>
  createInMemoryOrchestrator([{ apiKey: KEY, identity: { kind: "partner", partnerId: 1 }, customers: [] }]);

let received = 0;
const cpu: number[] = [];
const receiver = createServer((req, res) => {
  received += 1;
  req.resume();
  req.on("end", () => res.writeHead(204).end());
});
receiver.listen(0, "127.0.0.1");
await once(receiver, "listening");
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

/** ms per add over ADDS adds on a fresh data directory, with or without a webhook (and its relay running). */
const addsWith = async (webhook: boolean): Promise<number> => {
  const dir = await mkdtemp(join(tmpdir(), "sdwan-bench-webhooks-"));
  const config = loadConfig({ SDWAN_DATA_DIR: dir, SDWAN_LOG_LEVEL: "error", SDWAN_WEBHOOK_ALLOW_HTTP: "true" });
  if (E.isLeft(config)) throw new Error(config.left);
  const opened = await openService(config.right, { orchestrator: orchestrator() })();
  if (E.isLeft(opened)) throw new Error(opened.left);
  const { service, webhooks } = opened.right;
  const relay = webhooks.createRelay();
  if (webhook) {
    const created = await webhooks.create({ url: receiverUrl })();
    if (E.isLeft(created)) throw new Error(JSON.stringify(created.left));
    if (!process.env.NORELAY) relay.start();
  }
  received = 0;
  const c0 = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ADDS) {
        const alias = `bench-${(next += 1)}`;
        const added = await service.addConnection({ alias, orchestratorUrl: "https://vco.example.net", apiKey: KEY })();
        if (E.isLeft(added)) throw new Error(JSON.stringify(added.left));
      }
    }),
  );
  const msPerAdd = (performance.now() - started) / ADDS;
  if (webhook) while (received < ADDS) await new Promise((r) => setTimeout(r, 5));
  const c1 = process.cpuUsage(c0);
  if (webhook) cpu.push((c1.user + c1.system) / 1000 / ADDS); else cpu.push(-(c1.user + c1.system) / 1000 / ADDS);
  await relay.stop();
  await opened.right.close();
  await rm(dir, { recursive: true, force: true });
  return msPerAdd;
};

const without: number[] = [];
const withOne: number[] = [];
await addsWith(false); // warm-up: module loading and the JIT, not measured
for (let round = 0; round < ROUNDS; round += 1) {
  without.push(await addsWith(false));
  withOne.push(await addsWith(true));
}
receiver.close();
console.error(JSON.stringify({claims:(globalThis as any).claims, claimed:(globalThis as any).claimed, writes:(globalThis as any).writes, currentMs:(globalThis as any).currentMs}));
console.error(JSON.stringify(cpu.map((x) => x.toFixed(2))));
const base = median(without);
const measured = median(withOne);
const os = await import("node:os");
const markdown = [
  `${await machineLine()}, load average ${os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(
      ", ",
    )} at the end. \`pnpm --filter @sdwan-connections/http-express bench:webhooks\` (\`bench/webhooks.bench.ts\`): ${ADDS} adds (${CONCURRENCY} at a time, through the use cases, each answered once durable) on the embedded store, median of ${ROUNDS} interleaved rounds.`,
  "",
  markdownTable(
    ["case", "ms per add", "× without"],
    [
      ["add without a webhook", base.toFixed(2), "1.00"],
      [
        "add with one webhook configured (its relay delivering meanwhile)",
        measured.toFixed(2),
        (measured / base).toFixed(2),
      ],
    ],
  ),
  "",
  `Target ≤ 1.2×: ${measured / base <= 1.2 ? "met" : "not met"}. The relay's work shares the two cores with the adds (each delivery is a signed POST, answered by a receiver in this same process), and on the embedded store each claim rewrites \`webhooks.json\` (fsync'ed) with the pending deliveries; settlements ride with the next claim, and a claim takes a run of up to 100 of a webhook's deliveries.`,
].join("\n");
process.stdout.write(`${markdown}\n`);

