/**
 * Large partners: a partner with 10,000 customers, through the real service
 * (lowdb store, orchestrator-portal client, Basic auth), against the
 * orchestrator simulator in a child process; each figure beside its
 * baseline from the same run. Then a partner with 50,000 enterprises: cold
 * time, peak heap growth and RSS. Writes the "customers" section of
 * docs/benchmarks.md.
 *
 *   pnpm --filter @sdwan-connections/http-express bench
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  machineLine,
  markdownTable,
  measureMemory,
  median,
  runAutocannon,
  sized,
  startServiceProcess,
  startSimulatorProcess,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";
import { loadConfig } from "@sdwan-connections/composition";
import * as E from "fp-ts/lib/Either.js";
import { pino } from "pino";
import { startService, type RunningService } from "../src/service.js";

const DURATION_S = Number(process.env["BENCH_DURATION_S"] ?? sized(3, 1));
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? sized(5, 1));
const COLD_RUNS = sized(15, 2);
const CONNECTIONS = 10;
/** Issue 40: a warm answer's server CPU at most this many times bare node:http's for the same bytes. */
const WARM_CPU_TARGET = 1.2;
const KEY = "generated-partner-key-1";
const USER = { name: "bench", password: "bench-password-1" };
const AUTHORIZATION = `Basic ${Buffer.from(`${USER.name}:${USER.password}`).toString("base64")}`;
const CUSTOMERS_PATH = "/rest/plugin/sdwan/partner/big/customers";

const gc = (globalThis as { gc?: () => void }).gc;
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

/** The service, with the customers cache on (`warm`) or off (every request is cold). */
const startBenchService = async (dir: string, cache: "warm" | "cold"): Promise<RunningService> => {
  const config = loadConfig({
    SDWAN_PORT: "0",
    SDWAN_DATA_DIR: dir,
    SDWAN_ADMIN_USER: USER.name,
    SDWAN_ADMIN_PASSWORD: USER.password,
    SDWAN_CUSTOMERS_CACHE_TTL_MS: cache === "warm" ? "3600000" : "0",
    SDWAN_ORCHESTRATOR_TIMEOUT_MS: "60000",
    // No background health round lands in a run: the rows measure requests alone.
    SDWAN_HEALTH_INTERVAL_S: "0",
  });
  if (E.isLeft(config)) throw new Error(config.left);
  const started = await startService(config.right, {
    logDestination: pino.destination({ dest: "/dev/null", sync: true }),
  })();
  if (E.isLeft(started)) throw new Error(started.left);
  return started.right;
};

/** One raw GET: status, headers and the bytes as sent (not decoded). */
const get = (url: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(url, { headers: { authorization: AUTHORIZATION, ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on("error", reject);
      req.end();
    },
  );

const call = async (url: string, method: string, body: unknown): Promise<void> => {
  const response = await fetch(url, {
    method,
    headers: { authorization: AUTHORIZATION, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
};

interface Load {
  readonly rps: number;
  readonly p99: number;
  /** Bytes of body and headers received, per answer. */
  readonly bytesPerAnswer: number;
  /**
   * The server's CPU time per answer (µs), its process's alone: the load client, the simulator and the bare server
   * each run in their own, so the server is measured, not the load client, whose limit bounds req/s here.
   */
  readonly cpuUs: number;
}

/** A server's process CPU time so far (user and system, µs). */
type CpuMeter = () => Promise<number>;
/**
 * Any process's CPU time, read the same way for every server: the time on a CPU of each of its threads
 * (`/proc/<pid>/task/<tid>/schedstat`, in ns: `/proc/<pid>/stat` counts in 1/100 s, coarser than an idle second's).
 */
const processCpu =
  (pid: number): CpuMeter =>
  async () => {
    const threads = await readdir(`/proc/${pid}/task`);
    const times = await Promise.all(
      threads.map(async (tid) => Number((await readFile(`/proc/${pid}/task/${tid}/schedstat`, "utf8")).split(" ")[0])),
    );
    return times.reduce((sum, ns) => sum + ns, 0) / 1000;
  };
const thisProcess = processCpu(process.pid);

/** One autocannon run; every answer must have `status`. */
const load = async (
  url: string,
  headers: Record<string, string>,
  status: number,
  cpu: CpuMeter,
  seconds = DURATION_S,
): Promise<Load> => {
  const before = await cpu();
  const summary = await runAutocannon(url, { headers, connections: CONNECTIONS, seconds });
  const used = (await cpu()) - before;
  const wrong = status === 200 ? summary.non2xx : summary.requests.total - summary.non2xx;
  if (summary.errors > 0 || wrong > 0)
    throw new Error(`${url}: ${summary.errors} errors, ${wrong} answers other than ${status}`);
  return {
    rps: summary.requests.average,
    p99: summary.latency.p99,
    bytesPerAnswer: summary.throughput.total / Math.max(1, summary.requests.total),
    cpuUs: used / Math.max(1, summary.requests.total),
  };
};

interface Row {
  readonly label: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly status: number;
  readonly cpu: CpuMeter;
}

/** A warm-up each, then interleaved rounds (alternating direction); medians, and each round's results. */
const loadAll = async (rows: readonly Row[]): Promise<{ medians: Load[]; runs: Load[][] }> => {
  for (const row of rows) await load(row.url, row.headers, row.status, row.cpu, 1);
  const runs = rows.map((): Load[] => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = [...rows.entries()];
    if (round % 2 === 1) order.reverse();
    for (const [i, row] of order) {
      const result = await load(row.url, row.headers, row.status, row.cpu);
      runs[i]?.push(result);
      process.stdout.write(
        `round ${round + 1} ${row.label}: ${Math.round(result.rps)} req/s, p99 ${result.p99} ms, ${Math.round(result.cpuUs)} µs CPU/req\n`,
      );
    }
  }
  const medians = runs.map((results) => ({
    rps: median(results.map((r) => r.rps)),
    p99: median(results.map((r) => r.p99)),
    bytesPerAnswer: median(results.map((r) => r.bytesPerAnswer)),
    cpuUs: median(results.map((r) => r.cpuUs)),
  }));
  return { medians, runs };
};

/** Bare node:http in a child process, answering every request with `body` and `headers`. */
const BARE_SERVER = `
const { readFileSync } = require("node:fs");
const { createServer } = require("node:http");
const body = readFileSync(process.env.BODY_FILE);
const headers = JSON.parse(process.env.HEADERS);
const server = createServer((_req, res) => { res.writeHead(200, headers); res.end(body); });
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
`;

const startBareServer = async (dir: string, body: Buffer, headers: Record<string, string>) => {
  const bodyFile = join(dir, "bare-body.json");
  await writeFile(bodyFile, body);
  // The service's runtime (`startServiceProcess`: its sources through tsx, whose loader stays in the process): bare
  // node:http runs under the same flags, so the two differ only in what serves the request (scratch A/B, 5 rounds:
  // bare under tsx 1.03-1.10x bare without).
  const child = spawn(process.execPath, ["--conditions=sdwan-source", "--import", "tsx", "-e", BARE_SERVER], {
    env: { PATH: process.env["PATH"] ?? "", BODY_FILE: bodyFile, HEADERS: JSON.stringify(headers) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const [{ port }] = (await once(child, "message")) as [{ port: number }];
  return { url: `http://127.0.0.1:${port}`, cpu: processCpu(child.pid as number), close: () => child.kill() };
};

/** The headers a reply was sent with, but those node:http writes itself (date, connection, keep-alive). */
const sentHeaders = (headers: Record<string, string | string[] | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).flatMap(([name, value]) =>
      value === undefined || ["date", "connection", "keep-alive"].includes(name) ? [] : [[name, String(value)]],
    ),
  );

/** The orchestrator's raw answer, fetched and parsed: the floor a cold request cannot go below. */
/** The orchestrator's answer fetched and JSON.parse'd, as any client would take it; returns its size in bytes. */
const rawFetch = async (simulatorUrl: string): Promise<number> => {
  const response = await fetch(`${simulatorUrl}portal/rest/enterpriseProxy/getEnterpriseProxyEnterprises`, {
    method: "POST",
    headers: { authorization: `Token ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ enterpriseProxyId: 10 }),
  });
  const text = await response.text();
  if ((JSON.parse(text) as unknown[]).length === 0) throw new Error("empty answer");
  return Buffer.byteLength(text);
};

/** One GET of a service without customers cache: a cold answer. */
const coldRequest = async (service: RunningService): Promise<Buffer> => {
  const reply = await get(`${service.url}${CUSTOMERS_PATH}`);
  if (reply.status !== 200) throw new Error(`customers: ${reply.status}`);
  return reply.body;
};

/** A service without customers cache, with the partner connection added (forced: its key is not identified yet). */
const startColdService = async (dir: string, simulatorUrl: string): Promise<RunningService> => {
  const service = await startBenchService(dir, "cold");
  await call(`${service.url}/rest/plugin/sdwan/connections?force=true`, "POST", {
    alias: "big",
    orchestratorUrl: simulatorUrl,
    apiKey: KEY,
  });
  return service;
};

/**
 * The warm service alone in its process, as bare node:http is in its own: `pnpm start`'s process with the same
 * settings as `startBenchService`'s, its request lines logged (to its stdout, read by this process).
 */
const startWarmServiceProcess = (dir: string) =>
  startServiceProcess({
    SDWAN_DATA_DIR: dir,
    SDWAN_ADMIN_USER: USER.name,
    SDWAN_ADMIN_PASSWORD: USER.password,
    SDWAN_CUSTOMERS_CACHE_TTL_MS: "3600000",
    SDWAN_ORCHESTRATOR_TIMEOUT_MS: "60000",
    SDWAN_LOG_LEVEL: "info",
  });

const largePartner = async (dirs: readonly [string, string, string]): Promise<string> => {
  const simulator = await startSimulatorProcess(10_000);
  const inProcess = await startBenchService(dirs[0], "warm");
  const service = await startWarmServiceProcess(dirs[2]);
  const coldService = await startColdService(dirs[1], simulator.url);
  try {
    for (const { url } of [inProcess, service])
      await call(`${url}/rest/plugin/sdwan/connections?force=true`, "POST", {
        alias: "big",
        orchestratorUrl: simulator.url,
        apiKey: KEY,
      });
    await rawFetch(simulator.url);
    // The first cold request identifies the key (two round trips); the service remembers the identity for the next ones.
    let started = performance.now();
    let bytes = await coldRequest(coldService);
    const firstColdMs = performance.now() - started;

    // Cold, interleaved with the raw fetch + JSON.parse of the same answer; wall time, and this process's CPU time
    // (the service and its client; the simulator runs in another process), which other load on the machine barely moves.
    const cold: number[] = [];
    const raw: number[] = [];
    const coldCpu: number[] = [];
    const rawCpu: number[] = [];
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    for (let i = 0; i < COLD_RUNS; i += 1) {
      let cpu = process.cpuUsage();
      started = performance.now();
      await rawFetch(simulator.url);
      raw.push(performance.now() - started);
      rawCpu.push(cpuMs(cpu));
      cpu = process.cpuUsage();
      started = performance.now();
      bytes = await coldRequest(coldService);
      cold.push(performance.now() - started);
      coldCpu.push(cpuMs(cpu));
    }
    // Its idle timers would count in the warm rows: they measure this process's CPU.
    await coldService.close();
    const gzipReply = await get(`${service.url}${CUSTOMERS_PATH}`, { "accept-encoding": "gzip" });
    const brReply = await get(`${service.url}${CUSTOMERS_PATH}`, { "accept-encoding": "br" });
    const etag = gzipReply.headers["etag"] as string;
    const url = `${service.url}${CUSTOMERS_PATH}`;
    const identityReply = await get(url);
    const inProcessUrl = `${inProcess.url}${CUSTOMERS_PATH}`;
    if (!(await get(inProcessUrl)).body.equals(identityReply.body)) throw new Error("the two services answer apart");

    // The same answer from bare node:http, in its own process: the same bytes and headers, keep-alive as the service.
    const bare = await startBareServer(dirs[1], identityReply.body, sentHeaders(identityReply.headers));
    // What each server burns with no request (the service's timers: store polls, the event-loop monitor), µs per second.
    const idle = async (cpu: CpuMeter): Promise<number> => {
      const before = await cpu();
      await new Promise((resolve) => setTimeout(resolve, DURATION_S * 1000));
      return ((await cpu()) - before) / DURATION_S;
    };
    const serviceCpu = processCpu(service.pid);
    const [bareIdle, serviceIdle] = [await idle(bare.cpu), await idle(serviceCpu)];
    const auth = { authorization: AUTHORIZATION };
    const served = { status: 200, cpu: serviceCpu };
    const { medians, runs } = await loadAll([
      { label: "bare node:http, same answer", url: bare.url, headers: {}, status: 200, cpu: bare.cpu },
      { label: "service, identity", url, headers: auth, ...served },
      { label: "service, gzip", url, headers: { ...auth, "accept-encoding": "gzip" }, ...served },
      { label: "service, br", url, headers: { ...auth, "accept-encoding": "br" }, ...served },
      {
        ...served,
        label: "service, If-None-Match (304)",
        url,
        headers: { ...auth, "if-none-match": etag },
        status: 304,
      },
      // The method before: the service in this benchmark's process, its CPU the whole process's; its 304s, as before,
      // make its per-request code as hot as the other service's (answers at 80 a second leave it barely optimized).
      { label: "service in this process, identity", url: inProcessUrl, headers: auth, status: 200, cpu: thisProcess },
      {
        label: "service in this process, If-None-Match (304)",
        url: inProcessUrl,
        headers: { ...auth, "if-none-match": etag },
        status: 304,
        cpu: thisProcess,
      },
    ]);
    const [bareLoad, identity, gzip, br, notModified, inProcessIdentity, inProcessNotModified] = medians;
    // Each round's identity CPU ÷ the same round's bare CPU: the pairs move together with the machine's load.
    const pairedWith = (row: number) =>
      (runs[row] ?? []).map((run, i) => run.cpuUs / (runs[0]?.[i]?.cpuUs ?? Infinity));
    const paired = pairedWith(1);
    const pairedInProcess = pairedWith(5);
    // Per request without the idle part: what serving one more costs.
    const marginal = (row: Load | undefined, idleUsPerS: number) => (row?.cpuUs ?? 0) - idleUsPerS / (row?.rps ?? 1);
    bare.close();
    const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`;
    /** A row of the warm table: a run's figures, then what they compare to. */
    const loadRow = (label: string, load: Load | undefined, compared: string) => [
      label,
      Math.round(load?.rps ?? 0),
      load?.p99 ?? 0,
      Math.round(load?.bytesPerAnswer ?? 0),
      Math.round(load?.cpuUs ?? 0),
      compared,
    ];
    const coldMs = median(cold);
    const rawMs = median(raw);
    return [
      `### A partner with 10,000 customers (${mib(bytes.length)} MiB of JSON)`,
      "",
      `Autocannon (a child process), ${CONNECTIONS} connections, ${DURATION_S} s per run, ${ROUNDS} interleaved rounds after a warm-up, medians.`,
      "req/s is bounded by the load client reading 4.5 MiB answers; the server's CPU time per request is what the target",
      "judges: its process's, all threads (`/proc/<pid>/task/*/schedstat`), read the same way for each server. Bare node:http",
      "and the service each run alone in their own process (the service's main from its sources through tsx, as every bench",
      "runs it, its request lines logged to its stdout); the load client and the simulator in others. Bare node:http sends",
      "the service's identity answer as it is:",
      "the same bytes and headers, keep-alive, under the service's runtime flags (`--conditions=sdwan-source --import tsx`).",
      "The last two rows are the method before: the same service in this benchmark's",
      "process, which also starts and reaps the load client of every run.",
      "",
      markdownTable(
        ["Row", "req/s", "p99 ms", "bytes per answer", "server CPU µs/req", "Compared"],
        [
          loadRow("bare node:http sending the same answer", bareLoad, "baseline"),
          loadRow(
            "service, warm, identity",
            identity,
            `**${ratio(identity?.cpuUs ?? 0, bareLoad?.cpuUs ?? 1)}** bare's CPU per request (target ≤ ${WARM_CPU_TARGET}×): ${(identity?.cpuUs ?? Infinity) <= WARM_CPU_TARGET * (bareLoad?.cpuUs ?? 0) ? "met" : "**not met**"}; per round ${median(paired).toFixed(2)}× (${Math.min(...paired).toFixed(2)}–${Math.max(...paired).toFixed(2)}); by req/s ${ratio(identity?.rps ?? 0, bareLoad?.rps ?? 1)} of bare; without each server's idle CPU (service ${(serviceIdle / 1000).toFixed(1)} ms/s, bare ${(bareIdle / 1000).toFixed(1)} ms/s, measured alone) ${ratio(marginal(identity, serviceIdle), marginal(bareLoad, bareIdle))}`,
          ),
          loadRow(
            "service, warm, gzip",
            gzip,
            `${ratio(gzip?.rps ?? 0, bareLoad?.rps ?? 1)} of bare; ${(bytes.length / gzipReply.body.length).toFixed(1)}× smaller`,
          ),
          loadRow(
            "service, warm, br",
            br,
            `${ratio(br?.rps ?? 0, bareLoad?.rps ?? 1)} of bare; ${(bytes.length / brReply.body.length).toFixed(1)}× smaller`,
          ),
          loadRow("service, If-None-Match → 304", notModified, "no body"),
          loadRow(
            "service in this benchmark's process, warm, identity (the method before)",
            inProcessIdentity,
            `${ratio(inProcessIdentity?.cpuUs ?? 0, bareLoad?.cpuUs ?? 1)} bare's CPU per request; per round ${median(pairedInProcess).toFixed(2)}× (${Math.min(...pairedInProcess).toFixed(2)}–${Math.max(...pairedInProcess).toFixed(2)})`,
          ),
          loadRow(
            "service in this benchmark's process, If-None-Match → 304 (the method before)",
            inProcessNotModified,
            "no body",
          ),
        ],
      ),
      "",
      markdownTable(
        ["Cold request (customers cache off)", "median ms", "Compared", "median CPU ms (this process)", "Compared"],
        [
          [
            "raw fetch + JSON.parse of the orchestrator's answer",
            rawMs.toFixed(0),
            "baseline",
            median(rawCpu).toFixed(0),
            "baseline",
          ],
          [
            "service, identity known: fetch, the customers' JSON written from the answer, send; its client reads the reply",
            coldMs.toFixed(0),
            `**${ratio(coldMs, rawMs)}** (target ≤ 1.3×)`,
            median(coldCpu).toFixed(0),
            ratio(median(coldCpu), median(rawCpu)),
          ],
          [
            "service, first request (one run): identify, then the above",
            firstColdMs.toFixed(0),
            ratio(firstColdMs, rawMs),
            "",
            "",
          ],
        ],
      ),
    ].join("\n");
  } finally {
    await inProcess.close();
    await service.stop();
    simulator.child.kill();
  }
};

const hugePartner = async (dir: string): Promise<string> => {
  const simulator = await startSimulatorProcess(50_000);
  const service = await startColdService(dir, simulator.url);
  try {
    const raw = await measureMemory(() => rawFetch(simulator.url));
    const first = await measureMemory(() => coldRequest(service));
    const second = await measureMemory(() => coldRequest(service));
    const answer = raw.result;
    return [
      `### A partner with 50,000 enterprises (${mib(answer)} MiB orchestrator answer, ${mib(first.result.length)} MiB reply)`,
      "",
      "One cold request each, in this process (the simulator runs in another); heap growth is the peak of `heapUsed` above its value",
      `before the request, sampled every 2 ms${gc === undefined ? " (run without --expose-gc: growth includes garbage not yet collected)" : ", after a forced GC"}.`,
      "The service rows hold more than the cold path: the service's serialized reply and this benchmark's client reading it share the",
      "process. The cold path alone (fetch, the customers' JSON) is measured in the orchestrator section above.",
      "",
      markdownTable(
        ["", "ms", "peak heap growth", "÷ orchestrator answer", "peak RSS"],
        [
          [
            "raw fetch + JSON.parse",
            raw.durationMs.toFixed(0),
            `${mib(raw.heapGrowth)} MiB`,
            `${(raw.heapGrowth / answer).toFixed(2)}×`,
            `${mib(raw.peakRss)} MiB`,
          ],
          [
            "service, first cold request",
            first.durationMs.toFixed(0),
            `${mib(first.heapGrowth)} MiB`,
            `${(first.heapGrowth / answer).toFixed(2)}×`,
            `${mib(first.peakRss)} MiB`,
          ],
          [
            "service, another cold request",
            second.durationMs.toFixed(0),
            `${mib(second.heapGrowth)} MiB`,
            `${(second.heapGrowth / answer).toFixed(2)}×`,
            `${mib(second.peakRss)} MiB`,
          ],
        ],
      ),
    ].join("\n");
  } finally {
    await service.close();
    simulator.child.kill();
  }
};

const main = async (): Promise<void> => {
  const dirs = await Promise.all([1, 2, 3, 4].map(() => mkdtemp(join(tmpdir(), "sdwan-bench-customers-"))));
  try {
    const large = await largePartner([dirs[0] as string, dirs[1] as string, dirs[3] as string]);
    const huge = await hugePartner(dirs[2] as string);
    const markdown = [
      "## http-express: large partners",
      "",
      `${await machineLine()} \`pnpm --filter @sdwan-connections/http-express bench\` (\`bench/customers.bench.ts\`);`,
      `1-minute load average at the end: ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores (the machine is shared: ratios move with it).`,
      "The real service (lowdb store, orchestrator-portal client, Basic auth, JSON request logs) against the orchestrator",
      "simulator in a child process: with the customers cache on for the warm rows, off for the cold ones (every request cold).",
      "",
      large,
      "",
      huge,
      "",
    ].join("\n");
    await writeBenchmarkSection("customers", markdown);
    process.stdout.write(`${markdown}\n`);
  } finally {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
};

await main();
