/**
 * Issue 27: one orchestrator answer could take the service past its memory limit (a 16 MiB answer of
 * minimal enterprises: a 204 MiB reply, 707 MB peak RSS; the Kubernetes limit is 512 MiB). Peak RSS
 * (VmHWM) of a fresh service process answering one cold customers request (br, then gzip: the cache keeps
 * one compressed copy per encoding) at the default bound, beside the same 16 MiB answer with the bound
 * lifted (as before it existed) and the deployment's limit. The simulator runs in this process, and a scripted
 * orchestrator for answers no dataset can hold. Writes the "customers-bound" section of docs/benchmarks.md.
 *
 *   pnpm --filter @sdwan-connections/orchestrator-portal bench
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { once } from "node:events";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  machineLine,
  markdownTable,
  median,
  sized,
  startServiceProcess,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";
import { decodeDataset, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import * as E from "fp-ts/lib/Either.js";
import { DEFAULT_CUSTOMERS_BOUND } from "../src/index.js";

const LIMIT_MIB = 512;
const RUNS = Number(process.env["BENCH_ROUNDS"] ?? sized(2, 1));
const USER = { SDWAN_ADMIN_USER: "bench", SDWAN_ADMIN_PASSWORD: "bench-password-1" };
const AUTHORIZATION = `Basic ${Buffer.from(`${USER.SDWAN_ADMIN_USER}:${USER.SDWAN_ADMIN_PASSWORD}`).toString("base64")}`;
const UNBOUNDED = { SDWAN_CUSTOMERS_MAX_ENTERPRISES: "10000000", SDWAN_CUSTOMERS_MAX_REPLY_BYTES: "1073741824" };
const MIB = 2 ** 20;
const mib = (bytes: number): string => (bytes / MIB).toFixed(1);

/** The smallest enterprise the API may send (24 bytes, `{"id":1,"logicalId":"a"}`): each is a customer of 305. */
const minimal = (count: number, extra: (i: number) => object = () => ({})) =>
  Array.from({ length: count }, (_, i) => ({ id: (i % 9) + 1, logicalId: "a", ...extra(i) }));
// The bytes bound's worst case: an answer near the 64 MiB cap whose customers take just under 32 MiB (a long
// description each, written out, and as much again in a field the mapping does not read).
const LONG = 20_000;
const description = "d".repeat(Math.floor((0.97 * DEFAULT_CUSTOMERS_BOUND.replyBytes) / LONG) - 320);
const unread = "u".repeat(Math.floor((0.97 * 64 * MIB) / LONG) - description.length - 60);
const NESTING = 1_000;
// A 16 MiB answer, as in the issue.
const SIXTEEN_MIB = Math.floor((16 * MIB) / 25);

const PARTNERS = {
  sixteen: minimal(SIXTEEN_MIB),
  atCount: minimal(DEFAULT_CUSTOMERS_BOUND.enterprises),
  atBytes: minimal(LONG, () => ({ description, notes: unread })),
  // The first enterprise not of the usual form (an escaped key) and nested deeper than the fast path once read (64
  // levels; 1,000 is as deep as the simulator's JSON.stringify writes): the fast path passes it and counts on.
  unusual: [
    { id: 0, logicalId: "e0", "a\nb": JSON.parse(`${"[".repeat(NESTING)}${"]".repeat(NESTING)}`) as unknown },
    ...minimal(Math.floor((63 * MIB) / 25)),
  ],
};
/**
 * Answers within the enterprises bound whose enterprises are not of the usual form (an escaped key) and hold millions
 * of `[]` in a field the mapping does not read: `JSON.parse` of such an answer whole took about 23 times its size.
 * Served as bytes by a scripted orchestrator (as values they would take gigabytes), after the identification a
 * partner's key gets.
 */
const unusualWith = (id: number, bytes: number): string => {
  const head = `{"id":${id},"logicalId":"e${id}","\\u0061":1,"unread":[`;
  return `${head}${"[],".repeat(Math.floor((bytes - head.length) / 3))}[]]}`;
};
const MANY = 78;
const RAW = {
  oneLarge: Buffer.from(`[${unusualWith(1, 63 * MIB)}]`),
  manySmall: Buffer.from(
    `[${Array.from({ length: MANY }, (_, i) => unusualWith(i + 1, (63 * MIB) / MANY)).join(",")}]`,
  ),
};
const scripted = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const method = req.url?.split("/portal/rest/")[1];
    const answer =
      method === "enterpriseProxy/getEnterpriseProxyProperty"
        ? { status: 200, body: '{"id":1001,"enterpriseProxyId":10,"name":"x","value":"y"}' }
        : method === "enterpriseProxy/getEnterpriseProxyEnterprises"
          ? { status: 200, body: RAW[(req.headers.authorization ?? "").replace("Token key-", "") as keyof typeof RAW] }
          : { status: 400, body: '{"error":{"code":-32603,"message":"privileges check failed"}}' };
    res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.body);
  });
});

type Partner = keyof typeof PARTNERS | keyof typeof RAW;
const ids = Object.keys(PARTNERS) as (keyof typeof PARTNERS)[];
const dataset = decodeDataset({
  partners: ids.map((id, i) => ({
    enterpriseProxyId: 10 + i,
    name: id,
    keys: [`key-${id}`],
    enterprises: PARTNERS[id],
  })),
  customerKeys: [],
});
if (E.isLeft(dataset)) throw new Error(dataset.left);

/** One raw GET of the service: status and the bytes as sent. */
const get = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; bytes: number }>((resolve, reject) => {
    const req = request(url, { headers: { authorization: AUTHORIZATION, ...headers } }, (res) => {
      let bytes = 0;
      res.on("data", (chunk: Buffer) => (bytes += chunk.length));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes }));
    });
    req.on("error", reject);
    req.end();
  });

/** The process's peak resident set so far (Linux's VmHWM), in bytes. */
const peakRss = async (pid: number): Promise<number> => {
  const match = /VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? Number.NaN) * 1024;
};

interface Run {
  readonly idle: number;
  readonly peak: number;
  readonly status: number;
  readonly replyBytes: number;
}

/** A fresh service (its own data directory), one connection to `partner`, and one cold customers request in br then gzip. */
const coldRequest = async (orchestratorUrl: string, partner: Partner, env: Record<string, string>): Promise<Run> => {
  const dir = await mkdtemp(join(tmpdir(), "sdwan-bench-bound-"));
  const service = await startServiceProcess({
    ...USER,
    ...env,
    SDWAN_DATA_DIR: dir,
    SDWAN_ORCHESTRATOR_TIMEOUT_MS: "120000",
  });
  try {
    const added = await service.call("POST", "/rest/plugin/sdwan/connections?force=true", {
      body: { alias: "big", orchestratorUrl, apiKey: `key-${partner}` },
    });
    if (added.status !== 200) throw new Error(`add: ${added.status} ${added.text}`);
    const idle = await peakRss(service.pid);
    const url = `${service.url}/rest/plugin/sdwan/partner/big/customers`;
    const reply = await get(url, { "accept-encoding": "identity" });
    for (const encoding of ["br", "gzip"]) await get(url, { "accept-encoding": encoding });
    return { idle, peak: await peakRss(service.pid), status: reply.status, replyBytes: reply.bytes };
  } finally {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  }
};

const simulator = await startOrchestratorSimulator({ data: dataset.right, record: false });
scripted.listen(0, "127.0.0.1");
await once(scripted, "listening");
const scriptedUrl = `http://127.0.0.1:${(scripted.address() as AddressInfo).port}/`;
try {
  const answerBytes = {
    ...Object.fromEntries(
      dataset.right.partners.map((p) => [p.name, Buffer.byteLength(JSON.stringify(p.enterprises))]),
    ),
    oneLarge: RAW.oneLarge.length,
    manySmall: RAW.manySmall.length,
  } as Record<Partner, number>;
  const cases: readonly { readonly label: string; readonly partner: Partner; readonly env: Record<string, string> }[] =
    [
      { label: "16 MiB of minimal enterprises, **bound lifted** (as before it)", partner: "sixteen", env: UNBOUNDED },
      { label: "the same answer, default bound", partner: "sixteen", env: {} },
      {
        label: `**at the enterprises bound**: ${DEFAULT_CUSTOMERS_BOUND.enterprises.toLocaleString("en-US")} minimal enterprises`,
        partner: "atCount",
        env: {},
      },
      {
        label: `**at the bytes bound**: ${LONG.toLocaleString("en-US")} long enterprises, an answer near the 64 MiB cap`,
        partner: "atBytes",
        env: {},
      },
      {
        label: `an answer near the 64 MiB cap whose first enterprise is not of the usual form and nests ${NESTING.toLocaleString("en-US")} levels deep, default bound`,
        partner: "unusual",
        env: {},
      },
      {
        label:
          "an answer near the 64 MiB cap: **one enterprise not of the usual form holding 22 million `[]`** in a field not read",
        partner: "oneLarge",
        env: {},
      },
      {
        label: `an answer near the 64 MiB cap: **${MANY} enterprises not of the usual form**, 0.8 MiB of \`[]\` each`,
        partner: "manySmall",
        env: {},
      },
    ];
  const results: Run[][] = cases.map(() => []);
  // Interleaved rounds, so that the machine's load falls on every case alike.
  for (let round = 0; round < RUNS; round += 1)
    for (const [i, { label, partner, env }] of cases.entries()) {
      const run = await coldRequest(partner in RAW ? scriptedUrl : simulator.url, partner, env);
      results[i]?.push(run);
      process.stdout.write(
        `round ${round + 1} ${label}: HTTP ${run.status}, reply ${mib(run.replyBytes)} MiB, peak RSS ${mib(run.peak)} MiB\n`,
      );
    }
  const before = median(results[0]?.map((run) => run.peak) ?? []);
  const rows = cases.map(({ label, partner }, i) => {
    const runs = results[i] ?? [];
    const peak = median(runs.map((run) => run.peak));
    return [
      label,
      mib(answerBytes[partner]),
      `${runs[0]?.status} (${mib(runs[0]?.replyBytes ?? 0)} MiB)`,
      mib(median(runs.map((run) => run.idle))),
      `**${mib(peak)}**`,
      `${((peak / (LIMIT_MIB * MIB)) * 100).toFixed(0)}%`,
      i === 0 ? "baseline" : `${(peak / before).toFixed(2)}×`,
    ];
  });
  const markdown = `## Customers bound: peak memory of a cold request at the bound

\`pnpm --filter @sdwan-connections/orchestrator-portal bench\` (\`packages/orchestrator-portal/bench/customers-bound.bench.ts\`), issue 27:
a 16 MiB answer of minimal enterprises made a 204 MiB reply and 707 MB peak RSS, past the deployment's ${LIMIT_MIB} MiB limit.
${await machineLine()}; 1-minute load average at the end: ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores (the machine is shared).
Each row: a fresh service process (\`pnpm start\`'s sources through tsx, lowdb store), one partner connection, one cold customers
request in identity, then br, then gzip (the cache keeps one compressed copy per encoding); the process's peak RSS (VmHWM) after
them. The simulator (and a scripted orchestrator, for the last two rows) runs in the benchmark's process. Median of ${RUNS} interleaved rounds. Default bound:
${DEFAULT_CUSTOMERS_BOUND.enterprises.toLocaleString("en-US")} enterprises (\`SDWAN_CUSTOMERS_MAX_ENTERPRISES\`), ${mib(DEFAULT_CUSTOMERS_BOUND.replyBytes)} MiB of reply (\`SDWAN_CUSTOMERS_MAX_REPLY_BYTES\`).

${markdownTable(["Cold customers request", "answer (MiB)", "HTTP (identity reply)", "RSS before it (MiB)", "peak RSS (MiB)", `of ${LIMIT_MIB} MiB`, "÷ bound lifted"], rows)}

The row nesting 1,000 levels deep is the answer the bound did not reach at first: while the fast path read at most 64 levels, an
enterprise nested deeper sent the whole answer to the general path, parsed by \`JSON.parse\` before it could be counted (451.7 MiB
peak RSS, 88% of the limit, on 2026-11-25). The fast path now passes values of any depth without recursion and counts on past an
enterprise it does not write, so every answer over the enterprises bound is refused before any \`JSON.parse\`.

The last two rows are answers within the bound that the general path parsed whole (\`JSON.parse\` of \`[[],[],…]\` takes about 23
times its size): 1,623.3 and 1,199.7 MiB peak RSS (317% and 234% of the limit, one round on 2026-11-25), both listed. No answer is
now parsed whole past 1 MiB: the general path parses one enterprise at a time, and an enterprise larger than 1 MiB is garbage (the
first, 502); the second is listed (200), one 0.8 MiB enterprise parsed at a time.`;
  await writeBenchmarkSection("customers-bound", markdown);
  process.stdout.write(`${markdown}\n`);
} finally {
  scripted.close();
  await simulator.stop();
}
