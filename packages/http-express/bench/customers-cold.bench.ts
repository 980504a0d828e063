/**
 * Cold customers (issue 28): a partner with 10,000 enterprises from the orchestrator simulator (a child
 * process), asked of the real service over HTTP under a fresh alias each time (nothing cached for it; the
 * key's partner identity is known, so one orchestrator call, as for the baselines). Against, in the same run
 * and interleaved: (a) a minimal express app that fetches the same answer, `JSON.parse`s it, maps each
 * enterprise to a customer (`toCustomer`) and `res.json`s the list; (b) the same fetch, parse and map, then
 * `JSON.stringify`, in this process. Targets: the service ≤ 0.5× (a) (issue 40) and ≤ 1.3× (b). Writes the
 * "customers-cold" section of docs/benchmarks.md.
 *
 *   pnpm --filter @sdwan-connections/http-express bench:cold
 */
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { spawn } from "node:child_process";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  machineLine,
  markdownTable,
  median,
  sized,
  startSimulatorProcess,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";
import { loadConfig } from "@sdwan-connections/composition";
import { toCustomer, type Enterprise } from "@sdwan-connections/orchestrator-portal";
import express from "express";
import * as E from "fp-ts/lib/Either.js";
import { pino } from "pino";
import { startService } from "../src/service.js";

const ENTERPRISES = sized(10_000, 500);
const RUNS = Number(process.env["BENCH_ROUNDS"] ?? sized(15, 2));
const WARM_UP = 2;
/** Issue 40: a cold request within this share of the minimal express proxy's time (row a). */
const PROXY_TARGET = 0.5;
const KEY = "generated-partner-key-1";
const USER = { name: "bench", password: "bench-password-1" };
const AUTHORIZATION = `Basic ${Buffer.from(`${USER.name}:${USER.password}`).toString("base64")}`;

/**
 * The client, in a child process so that it does not share the servers' CPU: each GET read to its last byte, as a
 * client takes the reply; it answers the reply's size, or its status when not 200.
 */
const CLIENT = `
const { request } = require("node:http");
process.on("message", ({ url, headers }) => {
  const req = request(url, { headers }, (res) => {
    let bytes = 0;
    res.on("data", (chunk) => (bytes += chunk.length));
    res.on("end", () => process.send(res.statusCode === 200 ? { bytes } : { status: res.statusCode }));
  });
  req.on("error", (error) => process.send({ error: String(error) }));
  req.end();
});`;
const client = spawn(process.execPath, ["-e", CLIENT], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
const get = (url: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    client.once("message", (reply: { bytes?: number; status?: number; error?: string }) =>
      reply.bytes === undefined
        ? reject(new Error(`${url}: ${reply.error ?? `HTTP ${reply.status}`}`))
        : resolve(reply.bytes),
    );
    client.send({ url, headers });
  });

/** The orchestrator's answer, fetched and read as text. */
const fetchAnswer = async (simulatorUrl: string): Promise<string> => {
  const response = await fetch(`${simulatorUrl}portal/rest/enterpriseProxy/getEnterpriseProxyEnterprises`, {
    method: "POST",
    headers: { authorization: `Token ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ enterpriseProxyId: 10 }),
  });
  return await response.text();
};

/** The orchestrator's answer as any client takes it: fetched, `JSON.parse`d, each enterprise mapped to a customer. */
const fetchCustomers = async (simulatorUrl: string) =>
  (JSON.parse(await fetchAnswer(simulatorUrl)) as Enterprise[]).map(toCustomer);

const listen = async (server: Server): Promise<string> => {
  await once(server.listen(0, "127.0.0.1"), "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

interface Timed {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly bytes: number;
}

/** Wall time and this process's CPU time: the server's (the client and the simulator run in other processes). */
const time = async (work: () => Promise<number>): Promise<Timed> => {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const bytes = await work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, bytes };
};

const main = async (): Promise<void> => {
  // The machine may be shared: its load is part of the figures.
  const loadAtStart = loadavg()[0] as number;
  const dir = await mkdtemp(join(tmpdir(), "sdwan-bench-cold-"));
  const simulator = await startSimulatorProcess(ENTERPRISES);
  const config = loadConfig({
    SDWAN_PORT: "0",
    SDWAN_DATA_DIR: dir,
    SDWAN_ADMIN_USER: USER.name,
    SDWAN_ADMIN_PASSWORD: USER.password,
    SDWAN_ORCHESTRATOR_TIMEOUT_MS: "60000",
    // No background health round lands in a run: the rows measure requests alone.
    SDWAN_HEALTH_INTERVAL_S: "0",
  });
  if (E.isLeft(config)) throw new Error(config.left);
  const started = await startService(config.right, {
    logDestination: pino.destination({ dest: "/dev/null", sync: true }),
  })();
  if (E.isLeft(started)) throw new Error(started.left);
  const service = started.right;
  const proxyApp = express();
  proxyApp.get("/customers", async (_req, res) => {
    res.json(await fetchCustomers(simulator.url));
  });
  const proxy = proxyApp.listen(0, "127.0.0.1");
  const proxyUrl = await listen(proxy);
  /**
   * Connections under new aliases (forced: not validated), one per run of the service, so that nothing is cached for
   * one; all added before the first run, so that no add's work (its audit entry, its event) lands in a run.
   */
  const fresh: string[] = [];
  const addAliases = async (count: number): Promise<void> => {
    for (let i = 1; i <= count; i += 1) {
      const alias = `cold-${i}`;
      const added = await fetch(`${service.url}/rest/plugin/sdwan/connections?force=true`, {
        method: "POST",
        headers: { authorization: AUTHORIZATION, "content-type": "application/json" },
        body: JSON.stringify({ alias, orchestratorUrl: simulator.url, apiKey: KEY }),
      });
      if (added.status !== 200) throw new Error(`adding ${alias}: HTTP ${added.status}`);
      fresh.push(alias);
    }
  };
  const rows = {
    service: async () => {
      const alias = fresh.shift() as string;
      return await time(
        async () =>
          await get(`${service.url}/rest/plugin/sdwan/partner/${alias}/customers`, { authorization: AUTHORIZATION }),
      );
    },
    proxy: () => time(() => get(`${proxyUrl}/customers`)),
    inProcess: () => time(async () => Buffer.byteLength(JSON.stringify(await fetchCustomers(simulator.url)))),
    answer: () => time(async () => Buffer.byteLength(await fetchAnswer(simulator.url))),
  };
  const runs: Record<keyof typeof rows, Timed[]> = { service: [], proxy: [], inProcess: [], answer: [] };
  try {
    await addAliases(WARM_UP + RUNS);
    // The first listing identifies the key; later aliases with the same key and URL are listed in one call.
    for (let i = 0; i < WARM_UP; i += 1) for (const row of Object.values(rows)) await row();
    for (let i = 0; i < RUNS; i += 1) {
      // Interleaved, each row first in turn.
      const order = (Object.keys(rows) as (keyof typeof rows)[]).map(
        (_, k, names) => names[(i + k) % names.length] as keyof typeof rows,
      );
      for (const name of order) runs[name].push(await rows[name]());
    }
  } finally {
    await service.close();
    proxy.close();
    client.kill();
    simulator.child.kill();
    await rm(dir, { recursive: true, force: true });
  }

  const wall = (name: keyof typeof rows) => median(runs[name].map((run) => run.wallMs));
  const cpu = (name: keyof typeof rows) => median(runs[name].map((run) => run.cpuMs));
  const range = (name: keyof typeof rows) => {
    const values = runs[name].map((run) => run.wallMs);
    return `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)}`;
  };
  const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`;
  const bytes = (name: keyof typeof rows) => (runs[name][0]?.bytes ?? 0).toLocaleString("en-US");
  const markdown = [
    `## http-express: cold customers, ${ENTERPRISES.toLocaleString("en-US")} enterprises`,
    "",
    `${await machineLine()}. \`pnpm --filter @sdwan-connections/http-express bench:cold\` (\`bench/customers-cold.bench.ts\`);`,
    `1-minute load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]?.toFixed(1)} at the end, on ${cpus().length} cores (the machine is shared: figures move with it).`,
    `The orchestrator simulator and the client in child processes; the service and the express proxy in this one, so its CPU time is the`,
    `server's (row b: all of its work, in this process). ${RUNS} interleaved runs of each row`,
    `after ${WARM_UP} of each unmeasured; medians. The service is the real one (lowdb store, Basic auth, JSON logs to /dev/null), asked under a`,
    "new alias each run (all added before the first run), so nothing is cached for it (the key's partner identity is remembered: one orchestrator call, as for the baselines).",
    "",
    markdownTable(
      ["Row", "median ms (min–max)", "median server CPU ms", "bytes", "service ÷ row (medians)"],
      [
        [
          "(a) minimal express: fetch, `JSON.parse`, map (`toCustomer`), `res.json`; the client reads the reply",
          `${wall("proxy").toFixed(0)} (${range("proxy")})`,
          cpu("proxy").toFixed(0),
          bytes("proxy"),
          `**${ratio(wall("service"), wall("proxy"))}** (target ≤ ${PROXY_TARGET}×, issue 40): ${wall("service") <= PROXY_TARGET * wall("proxy") ? "met" : "**not met**"}; server CPU **${ratio(cpu("service"), cpu("proxy"))}**`,
        ],
        [
          "(b) in process: fetch, `JSON.parse`, map, `JSON.stringify`",
          `${wall("inProcess").toFixed(0)} (${range("inProcess")})`,
          cpu("inProcess").toFixed(0),
          bytes("inProcess"),
          `**${ratio(wall("service"), wall("inProcess"))}** (target ≤ 1.3×); CPU ${ratio(cpu("service"), cpu("inProcess"))}`,
        ],
        [
          "(c) the orchestrator's answer alone, fetched and read: what every row waits for (a floor, not a target)",
          `${wall("answer").toFixed(0)} (${range("answer")})`,
          cpu("answer").toFixed(0),
          bytes("answer"),
          `${ratio(wall("answer"), wall("proxy"))} of (a)'s time`,
        ],
        [
          "**service**, a fresh alias: the customers' JSON written from the answer's bytes; the client reads the reply",
          `${wall("service").toFixed(0)} (${range("service")})`,
          cpu("service").toFixed(0),
          bytes("service"),
          "",
        ],
      ],
    ),
    "",
  ].join("\n");
  await writeBenchmarkSection("customers-cold", markdown);
  process.stdout.write(`${markdown}\n`);
};

await main();
