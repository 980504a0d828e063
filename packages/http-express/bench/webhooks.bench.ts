/**
 * `pnpm bench:webhooks`: what one webhook costs an add. The same adds (through the use cases, each acknowledged
 * once durable), on the embedded store and on PostgreSQL: with no webhook; with one webhook configured, its relay
 * stopped (what the add itself pays: the outbox); and with its relay delivering to a loopback receiver meanwhile (a
 * process of its own, as a receiver is another host). Interleaved rounds, the medians and their ratios (target
 * ≤ 1.2×), beside the process's CPU per add until every delivery is made. Results go to docs/benchmarks.md
 * (section "webhooks").
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { machineLine, markdownTable, median, sized, writeBenchmarkSection } from "@sdwan-connections/bench-kit";
import { loadConfig, openService } from "@sdwan-connections/composition";
import { createInMemoryOrchestrator } from "@sdwan-connections/core/testing";
import { startPostgres } from "@sdwan-connections/storage-postgres/testing";
import * as E from "fp-ts/lib/Either.js";

const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? sized(5, 1));
const ADDS = Number(process.env["BENCH_ADDS"] ?? sized(1000, 50));
// Adds in flight at once, as a service's concurrent requests.
const CONCURRENCY = 10;
const KEY = "bench-partner-key-1";

const orchestrator = () =>
  createInMemoryOrchestrator([{ apiKey: KEY, identity: { kind: "partner", partnerId: 1 }, customers: [] }]);

// Answers 204 to every POST, and prints its port, then the count of POSTs it answered on each line read.
const RECEIVER = `
  const server = require("node:http").createServer((req, res) => { req.resume(); req.on("end", () => { count += 1; res.writeHead(204).end(); }); });
  let count = 0;
  server.listen(0, "127.0.0.1", () => console.log(server.address().port));
  process.stdin.on("data", () => console.log(count));
`;
const receiver = spawn(process.execPath, ["-e", RECEIVER], { stdio: ["pipe", "pipe", "inherit"] });
const answers = receiver.stdout.setEncoding("utf8")[Symbol.asyncIterator]();
const nextLine = async () => Number(String((await answers.next()).value).trim());
const receiverUrl = `http://127.0.0.1:${await nextLine()}/hook`;
const received = async () => {
  receiver.stdin.write("\n");
  return nextLine();
};

const postgres = await startPostgres({ label: "http-express-webhooks-bench" });
let databases = 0;
/** The stores compared, each a fresh one per round: the settings that open it. */
const STORES = {
  embedded: async () => ({}),
  PostgreSQL: async () => ({
    SDWAN_STORAGE: "postgres",
    SDWAN_DATABASE_URL: await postgres.database(`bench_webhooks_${(databases += 1)}`),
    SDWAN_MASTER_KEY: randomBytes(32).toString("base64"),
  }),
};
type Store = keyof typeof STORES;

/** What is compared: no webhook; one, its relay stopped (what the add itself pays: the outbox); one, delivering. */
const CASES = [
  { name: "add without a webhook", webhook: false, relay: false },
  { name: "add with one webhook configured, its relay stopped (the outbox alone)", webhook: true, relay: false },
  { name: "add with one webhook configured, its relay delivering meanwhile", webhook: true, relay: true },
] as const;
type Case = (typeof CASES)[number];

/**
 * ms per add over ADDS adds on a fresh store in `measured`'s case, and the process's CPU ms per add until every
 * delivery is made.
 */
const addsWith = async (store: Store, { webhook, relay: delivering }: Case): Promise<{ wall: number; cpu: number }> => {
  const dir = await mkdtemp(join(tmpdir(), "sdwan-bench-webhooks-"));
  const config = loadConfig({
    SDWAN_DATA_DIR: dir,
    SDWAN_LOG_LEVEL: "error",
    SDWAN_WEBHOOK_ALLOW_HTTP: "true",
    ...(await STORES[store]()),
  });
  if (E.isLeft(config)) throw new Error(config.left);
  const opened = await openService(config.right, { orchestrator: orchestrator() })();
  if (E.isLeft(opened)) throw new Error(opened.left.message);
  const { service } = opened.right;
  // openService gives core a sender: its webhooks are there.
  const webhooks = service.webhooks!;
  const relay = webhooks.createRelay();
  if (webhook) {
    const created = await webhooks.create({ url: receiverUrl })();
    if (E.isLeft(created)) throw new Error(JSON.stringify(created.left));
  }
  if (delivering) relay.start();
  const before = await received();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ADDS) {
        const alias = `bench-${(next += 1)}`;
        const added = await service.connections.add({
          alias,
          orchestratorUrl: "https://vco.example.net",
          apiKey: KEY,
        })();
        if (E.isLeft(added)) throw new Error(JSON.stringify(added.left));
      }
    }),
  );
  const wall = (performance.now() - started) / ADDS;
  while (delivering && (await received()) - before < ADDS) await new Promise((resolve) => setTimeout(resolve, 5));
  const used = process.cpuUsage(cpu);
  await relay.stop();
  await opened.right.close();
  await rm(dir, { recursive: true, force: true });
  return { wall, cpu: (used.user + used.system) / 1000 / ADDS };
};

type Round = { wall: number; cpu: number };
const rounds = new Map<Store, Round[][]>();
for (const store of Object.keys(STORES) as Store[]) {
  // Warm-up, not measured: module loading and the JIT, of every path.
  for (const measured of CASES) await addsWith(store, measured);
  const measured = CASES.map((): Round[] => []);
  for (let round = 0; round < ROUNDS; round += 1)
    for (const [index, one] of CASES.entries()) measured[index]?.push(await addsWith(store, one));
  rounds.set(store, measured);
}
receiver.kill();
await postgres.stop();

const medians = (of: readonly Round[] = []) => ({
  wall: median(of.map(({ wall }) => wall)),
  cpu: median(of.map(({ cpu }) => cpu)),
});
const rows = [...rounds].flatMap(([store, measured]) => {
  const base = medians(measured[0]);
  return CASES.map(({ name }, index) => {
    const one = medians(measured[index]);
    return [
      `${store}: ${name}`,
      one.wall.toFixed(2),
      (one.wall / base.wall).toFixed(2),
      one.cpu.toFixed(2),
      (one.cpu / base.cpu).toFixed(2),
    ];
  });
});
// What a delivery costs the service beside the add's outbox: deliveries per CPU-second (issue 40's floor: ≥ 600).
const perCpuSecond = [...rounds].map(([store, measured]) => {
  const marginal = medians(measured[2]).cpu - medians(measured[1]).cpu;
  return `${store} ${marginal > 0 ? Math.round(1000 / marginal).toLocaleString("en") : "∞"}`;
});
const met = rows.filter((_, index) => index % CASES.length === 2).every((row) => Number(row[2]) <= 1.2);
const markdown = [
  `${await machineLine()}, load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(
      ", ",
    )} at the end. \`pnpm --filter @sdwan-connections/http-express bench:webhooks\` (\`bench/webhooks.bench.ts\`): ${ADDS} adds (${CONCURRENCY} at a time, through the use cases, each answered once durable) on a fresh store each round (the embedded one; PostgreSQL in a container, fsync off), median of ${ROUNDS} interleaved rounds.`,
  "",
  markdownTable(["case", "ms per add", "× without", "CPU ms per add (until delivered)", "× without"], rows),
  "",
  `Deliveries per service CPU-second (the relay delivering less the outbox alone, over node:http through outbound-http's client): ${perCpuSecond.join(", ")}; floor ≥ 600.`,
  "",
  `Target ≤ 1.2× per add, the relay delivering: ${met ? "met" : "not met"}. The relay's work shares the two cores with the adds, which keep one busy: each delivery is a signed POST (to a receiver in another process), and the CPU column counts it (the service process's, not PostgreSQL's), made after or beside the add. On the embedded store a claim reads the trail only from where the last one stopped and writes \`webhook-deliveries.json\` once per run of up to 100 deliveries (the settlements ride with the next claim); the trail's appends read only \`webhooks.json\`, never waiting for a claim. On PostgreSQL the delivery rows are inserted in the audit entry's statement, and relays claim with \`for update skip locked\`.`,
].join("\n");
process.stdout.write(`${markdown}\n`);
await writeBenchmarkSection("webhooks", markdown);
