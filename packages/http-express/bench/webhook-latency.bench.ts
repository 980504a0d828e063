/**
 * `pnpm bench:webhook-latency`: how soon a webhook is attempted after its change's commit (issue 40, SPEC §9: p99
 * ≤ 50 ms on an idle instance), beside the same change's event on `GET /events` (the baseline, in the same run).
 * The service runs as processes of its own (`pnpm start`'s, from sources): on the embedded store one instance; on
 * PostgreSQL (testcontainers) two instances on one database, the change made on A, the delivery by either relay
 * (both run), the stream on A. A receiver in this process answers 204 to every POST. Changes are made one at a
 * time, each once the previous one's webhook and event arrived (an idle instance), in rounds interleaving the
 * stores. Latency is from the event's `time` (its audit entry's, stamped just before the commit) to the first POST's
 * arrival at the receiver, and to the event's arrival at the stream: one clock. Results go to docs/benchmarks.md
 * (section "webhook-latency").
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  machineLine,
  markdownTable,
  percentile,
  sized,
  startServiceProcess,
  writeBenchmarkSection,
  type ServiceProcess,
} from "@sdwan-connections/bench-kit";
import { startPostgres } from "@sdwan-connections/storage-postgres/testing";
import { ADMIN, BASE } from "../test/harness.js";
import { openEventStream, type EventStream } from "../test/sse-client.js";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? sized(5, 1));
const CHANGES = Number(process.env["BENCH_CHANGES"] ?? sized(60, 5));
const WARM_UP = sized(10, 1);
const GOAL_P99_MS = 50;

const now = () => performance.timeOrigin + performance.now();
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const loadAverage = async () => (await readFile("/proc/loadavg", "utf8")).split(" ").slice(0, 3).join(", ");

// The receiver: each event's first POST, by subject, with its arrival time.
const firstPost = new Map<string, number>();
const receiver = createServer((request, response) => {
  const arrived = now();
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const { subject } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { subject: string };
    if (!firstPost.has(subject)) firstPost.set(subject, arrived);
    response.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const postgres = await startPostgres({ label: "http-express-webhook-latency-bench" });
const version = String((await postgres.rows("show server_version"))[0]?.["server_version"]).split(" ")[0];
const dir = await mkdtemp(join(tmpdir(), "sdwan-bench-webhook-latency-"));
const common = {
  SDWAN_ADMIN_USER: ADMIN.name,
  SDWAN_ADMIN_PASSWORD: ADMIN.password,
  SDWAN_WEBHOOK_ALLOW_HTTP: "true",
};
const onPostgres = {
  SDWAN_STORAGE: "postgres",
  SDWAN_DATABASE_URL: await postgres.database("bench_webhook_latency"),
  SDWAN_MASTER_KEY: randomBytes(32).toString("base64"),
};

interface Setup {
  /** Where changes are made and the stream is read. */
  readonly writer: ServiceProcess;
  readonly processes: readonly ServiceProcess[];
  readonly stream: EventStream;
}
const setUp = async (name: string, instances: number, env: Record<string, string>): Promise<Setup> => {
  const processes: ServiceProcess[] = [];
  for (let index = 0; index < instances; index += 1)
    processes.push(await startServiceProcess({ ...common, ...env, SDWAN_DATA_DIR: join(dir, `${name}-${index}`) }));
  const writer = processes[0] as ServiceProcess;
  const created = await writer.call("POST", `${BASE}/webhooks`, {
    body: { url: receiverUrl, types: ["connection.added"] },
  });
  if (created.status !== 201) throw new Error(`webhook: ${created.status} ${created.text}`);
  const stream = await openEventStream(`${writer.url}${BASE}/events?types=connection.added`);
  return { writer, processes, stream };
};
const STORES = new Map<string, Setup>([
  ["embedded", await setUp("embedded", 1, {})],
  [`PostgreSQL ${version}, two instances`, await setUp("postgres", 2, onPostgres)],
]);

/** One change on an idle instance: its webhook's and its event's latencies (ms from its `time`). */
let changes = 0;
const change = async ({ writer, stream }: Setup): Promise<{ webhook: number; event: number }> => {
  const alias = `latency-${(changes += 1)}`;
  const answer = await writer.call("POST", `${BASE}/connections?force=true`, {
    body: { alias, orchestratorUrl: "https://orchestrator.example.net", apiKey: "k".repeat(40) },
  });
  if (answer.status !== 200) throw new Error(`add ${alias}: ${answer.status} ${answer.text}`);
  const deadline = performance.now() + 30_000;
  const arrival = () =>
    stream.events.find((event) => (JSON.parse(event.data) as { subject?: string }).subject === alias);
  while (!firstPost.has(alias) || arrival() === undefined) {
    if (performance.now() > deadline) throw new Error(`${alias}: no webhook or no event within 30 s`);
    await settle(2);
  }
  const event = arrival();
  const time = Date.parse((JSON.parse(event?.data ?? "{}") as { time: string }).time);
  // Both sides idle again before the next change.
  await settle(10);
  return { webhook: (firstPost.get(alias) as number) - time, event: performance.timeOrigin + (event?.at ?? 0) - time };
};

const loadBefore = await loadAverage();
const samples = new Map<string, { webhook: number[]; event: number[] }>(
  [...STORES.keys()].map((store) => [store, { webhook: [], event: [] }]),
);
try {
  for (const setup of STORES.values()) for (let i = 0; i < WARM_UP; i += 1) await change(setup);
  for (let round = 0; round < ROUNDS; round += 1) {
    // Interleaved: each round takes the stores in turn, starting with another one each time.
    const order = [...STORES];
    for (const [store, setup] of round % 2 === 0 ? order : order.reverse())
      for (let i = 0; i < CHANGES; i += 1) {
        const measured = await change(setup);
        samples.get(store)?.webhook.push(measured.webhook);
        samples.get(store)?.event.push(measured.event);
      }
  }
} finally {
  for (const { stream, processes } of STORES.values()) {
    await stream.close();
    await Promise.all(processes.map((one) => one.stop()));
  }
  receiver.close();
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
}
const loadAfter = await loadAverage();

const ms = (value: number) => value.toFixed(1);
const rows = [...samples].flatMap(([store, { webhook, event }]) =>
  [0.5, 0.99].map((q) => [
    store,
    `p${q * 100}`,
    ms(percentile(webhook, q)),
    ms(percentile(event, q)),
    `${(percentile(webhook, q) / Math.max(percentile(event, q), 0.1)).toFixed(2)}×`,
  ]),
);
const met = [...samples.values()].every(({ webhook }) => percentile(webhook, 0.99) <= GOAL_P99_MS);
const markdown = [
  "## webhook-latency: from commit to the first webhook attempt, beside the same change's event",
  "",
  `${await machineLine()}. \`pnpm --filter @sdwan-connections/http-express bench:webhook-latency\` (\`bench/webhook-latency.bench.ts\`), issue 40:`,
  "the service as processes of its own (`pnpm start`'s, from sources); the embedded store, one instance; PostgreSQL",
  `(a container, fsync off), two instances on one database, the change made on the first, the delivery by either relay.`,
  `${CHANGES} changes per store in each of ${ROUNDS} interleaved rounds (after ${WARM_UP} not counted), one at a time, each once`,
  "the previous one's webhook and event arrived (an idle instance). Latency is from the event's `time` (its audit",
  "entry's, stamped just before the commit) to the arrival of the webhook's first POST at a receiver in the bench's",
  "process, and to the event's arrival on `GET /events` of the instance that made the change: one clock, ms.",
  `Load average (1, 5, 15 min) ${loadBefore} before, ${loadAfter} after, on 2 cores shared with other work.`,
  "",
  markdownTable(["store", "", "webhook, ms", "event (baseline), ms", "webhook ÷ event"], rows),
  "",
  `Goal: webhook p99 ≤ ${GOAL_P99_MS} ms on both stores (SPEC §9): ${met ? "met" : "not met"}. Relays are woken by the`,
  "store's commits (this instance's at once; another instance's by the NOTIFY the event stream uses), polling only",
  "as the fallback.",
].join("\n");
process.stdout.write(`${markdown}\n`);
await writeBenchmarkSection("webhook-latency", markdown);
