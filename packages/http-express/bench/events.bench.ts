/**
 * `pnpm bench:events`: what following `GET /events` costs (issue 29), two instances of the service (each its own
 * process, `pnpm start`'s) on one PostgreSQL database (testcontainers).
 * 1. Latency: instance A takes WRITES adds one after another; one stream on A (the baseline: the same instance) and
 *    one on B (another instance: NOTIFY after commit, B fetches the entry) read every event. Latency is from the
 *    event's `time` (its audit entry's, stamped before the commit) to its arrival at the client; p50 and p99 of
 *    each, and B's over A's. Goal: p99 ≤ 250 ms on B.
 * 2. Memory: B's resident memory with IDLE_STREAMS idle streams open against none. Goal: ≤ 20 MiB more.
 * Results go to docs/benchmarks.md (section "events").
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
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
} from "@sdwan-connections/bench-kit";
import { startPostgres } from "@sdwan-connections/storage-postgres/testing";
import { ADMIN, BASE } from "../test/harness.js";
import { openEventStream, type EventStream } from "../test/sse-client.js";

const WRITES = Number(process.env["BENCH_WRITES"] ?? sized(300, 20));
const WARM_UP = sized(20, 2);
const IDLE_STREAMS = sized(200, 10);
const EVENTS = `${BASE}/events?types=connection.added`;

/** Resident memory of a process, in MiB (Linux). */
const rssMiB = async (pid: number): Promise<number> =>
  Number(/VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024;
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const loadAverage = async () => (await readFile("/proc/loadavg", "utf8")).split(" ").slice(0, 3).join(", ");

/** Until every stream has `count` events (or the time is up: then the bench fails, it does not report less). */
const waitForEvents = async (streams: readonly EventStream[], count: number): Promise<void> => {
  const deadline = performance.now() + 30_000;
  while (streams.some((stream) => stream.events.length < count)) {
    if (performance.now() > deadline) throw new Error(`events missing: ${streams.map((s) => s.events.length)}`);
    await settle(20);
  }
};

/** Each event's latency in ms, from its `time` to its arrival (both on this machine's clock). */
const latencies = (stream: EventStream): number[] =>
  stream.events
    .slice(WARM_UP)
    .map((event) => performance.timeOrigin + event.at - Date.parse((JSON.parse(event.data) as { time: string }).time));

const main = async (): Promise<void> => {
  const loadBefore = await loadAverage();
  const postgres = await startPostgres({ label: "http-express-events-bench" });
  const version = String((await postgres.rows("show server_version"))[0]?.["server_version"]).split(" ")[0];
  const dir = await mkdtemp(join(tmpdir(), "sdwan-bench-events-"));
  const masterKey = randomBytes(32).toString("base64");
  const env = (name: string) => ({
    SDWAN_DATA_DIR: join(dir, name),
    SDWAN_STORAGE: "postgres",
    SDWAN_DATABASE_URL: postgres.connectionString,
    SDWAN_MASTER_KEY: masterKey,
    SDWAN_ADMIN_USER: ADMIN.name,
    SDWAN_ADMIN_PASSWORD: ADMIN.password,
  });
  const a = await startServiceProcess(env("a"));
  const b = await startServiceProcess(env("b"));
  const streams: EventStream[] = [];
  try {
    // 2. Memory first, on a B that has served one stream and one event (its code loaded), then rests.
    const warm = await openEventStream(`${b.url}${EVENTS}`);
    await a.call("POST", `${BASE}/connections?force=true`, {
      body: { alias: "warm-up", orchestratorUrl: "https://orchestrator.example.net", apiKey: "k".repeat(40) },
    });
    await waitForEvents([warm], 1);
    await warm.close();
    await settle(1_000);
    // Ten principals (viewer tokens), as a principal holds at most a tenth of the streams.
    const tokens: string[] = [];
    for (let i = 0; i < 10; i += 1)
      tokens.push(
        (
          await a.call("POST", `${BASE}/tokens`, { body: { name: `reader-${i}`, expiresInDays: 1, role: "viewer" } })
        ).json<{ token: string }>().token,
      );
    const none = await rssMiB(b.pid);
    for (let i = 0; i < IDLE_STREAMS; i += 1)
      streams.push(
        await openEventStream(`${b.url}${EVENTS}`, {
          headers: { authorization: `Bearer ${tokens[i % tokens.length]}` },
        }),
      );
    if (streams.some((stream) => stream.response.status !== 200)) throw new Error("a stream was refused");
    await settle(1_000);
    const idle = await rssMiB(b.pid);
    await Promise.all(streams.splice(0).map((stream) => stream.close()));
    await settle(500);

    // 1. Latency: one stream on each instance, the same writes.
    const onA = await openEventStream(`${a.url}${EVENTS}`);
    const onB = await openEventStream(`${b.url}${EVENTS}`);
    streams.push(onA, onB);
    const writeMs: number[] = [];
    for (let i = 0; i < WARM_UP + WRITES; i += 1) {
      const started = performance.now();
      const answer = await a.call("POST", `${BASE}/connections?force=true`, {
        body: { alias: `e${i}`, orchestratorUrl: "https://orchestrator.example.net", apiKey: "k".repeat(40) },
      });
      if (answer.status !== 200) throw new Error(`add ${i}: ${answer.status} ${answer.text}`);
      if (i >= WARM_UP) writeMs.push(performance.now() - started);
    }
    await waitForEvents([onA, onB], WARM_UP + WRITES);
    const loadAfter = await loadAverage();
    const same = latencies(onA);
    const other = latencies(onB);
    const ms = (value: number) => value.toFixed(1);
    const p = (samples: number[], q: number) => percentile(samples, q);
    const markdown = [
      "## events: from commit to an SSE client, and what idle streams cost",
      "",
      `${await machineLine()}. \`pnpm --filter @sdwan-connections/http-express bench:events\` (\`bench/events.bench.ts\`), issue 29:`,
      `two instances of the service, each its own process (\`pnpm start\`'s, from sources), on one PostgreSQL ${version} database in a`,
      `container (fsync off). Instance A takes ${WRITES} adds one after another (after ${WARM_UP} not counted); one stream on A`,
      "and one on B read every event. Latency is from the event's `time` (its audit entry's, stamped just before the",
      "commit) to its arrival at the client, one clock. On B the event comes by PostgreSQL's NOTIFY after the commit and B",
      `reads the entry. Load average (1, 5, 15 min) ${loadBefore} before, ${loadAfter} after, on 2 cores shared with other work.`,
      "",
      markdownTable(
        ["", "same instance (A → stream on A), baseline", "other instance (A → stream on B)", "ratio"],
        [
          ["p50 latency, ms", ms(p(same, 0.5)), ms(p(other, 0.5)), `${(p(other, 0.5) / p(same, 0.5)).toFixed(2)}×`],
          ["p99 latency, ms", ms(p(same, 0.99)), ms(p(other, 0.99)), `${(p(other, 0.99) / p(same, 0.99)).toFixed(2)}×`],
          ["max latency, ms", ms(Math.max(...same)), ms(Math.max(...other)), ""],
        ],
      ),
      "",
      `Goal: p99 ≤ 250 ms on the other instance. Each add (A's answer, acknowledged once durable) took p50 ${ms(p(writeMs, 0.5))} ms.`,
      "",
      markdownTable(
        ["B's resident memory", "MiB"],
        [
          ["no stream open", none.toFixed(1)],
          [`${IDLE_STREAMS} idle streams open`, idle.toFixed(1)],
          [
            "difference",
            `+${(idle - none).toFixed(1)} (${(((idle - none) * 1024) / IDLE_STREAMS).toFixed(1)} KiB a stream)`,
          ],
        ],
      ),
      "",
      `Goal: ${IDLE_STREAMS} idle streams cost at most 20 MiB. Resident memory also moves with the garbage collector's`,
      "rhythm: a single reading, 1 s after the streams opened.",
    ].join("\n");
    process.stdout.write(`${markdown}\n`);
    await writeBenchmarkSection("events", markdown);
  } finally {
    await Promise.all(streams.map((stream) => stream.close()));
    await Promise.all([a.stop(), b.stop()]);
    await postgres.stop();
    await rm(dir, { recursive: true, force: true });
  }
};

await main();
