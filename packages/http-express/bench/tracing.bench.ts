/**
 * `pnpm bench` (tracing part): what OpenTelemetry traces cost GET /connections. Four service processes (`pnpm
 * start`'s main, the embedded store, 100 connections) in one run: the code before traces existed (the parent of
 * the commit that added them, exported from git; `BENCH_BASELINE_REF` picks another) twice, which says how far two
 * identical processes drift apart on this machine in this run; this code with traces off (no OTEL_* variable); and
 * this code with traces on, every span exported to an OTLP/HTTP receiver in this process. Interleaved rounds in a
 * rotating order, each service's own CPU time per request (/proc/<pid>/stat) compared within each round. Target:
 * off within 2 % of before (or within the A/A drift, when the machine is noisier than that); on, reported.
 * Results go to docs/benchmarks.md (section "tracing").
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  machineLine,
  markdownTable,
  median,
  runAutocannon,
  type ServiceProcess,
  sized,
  startServiceProcess,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";

const DURATION_S = Number(process.env["BENCH_DURATION_S"] ?? 1);
// Many short rounds: on a shared machine the median of many paired ratios is steadier than a few long runs.
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? sized(15, 2));
const CONNECTIONS = 10;
const STORED = 100;
const ADMIN = { SDWAN_ADMIN_USER: "bench", SDWAN_ADMIN_PASSWORD: "bench-password-1" };
const AUTHORIZATION = `Basic ${Buffer.from("bench:bench-password-1").toString("base64")}`;
const LIST_PATH = "/rest/plugin/sdwan/connections";
const REPOSITORY = fileURLToPath(new URL("../../..", import.meta.url));
// Linux's clock ticks per second for /proc/<pid>/stat's utime and stime (USER_HZ).
const TICKS_PER_S = 100;

const git = (...args: string[]) => execFileSync("git", ["-C", REPOSITORY, ...args], { encoding: "utf8" }).trim();

/**
 * The code before traces, exported from git into a temporary directory (no worktree: the repository's metadata is
 * left as it was), its dependencies installed from pnpm's store (no registry asked).
 */
const checkoutBaseline = async () => {
  const added = git("log", "--diff-filter=A", "--format=%H", "--", "packages/composition/src/tracing.ts")
    .split("\n")
    .at(-1);
  const ref = process.env["BENCH_BASELINE_REF"] ?? `${added}^`;
  const dir = await mkdtemp(join(tmpdir(), "sdwan-bench-baseline-"));
  execFileSync("sh", ["-c", 'git -C "$0" archive "$1" | tar -x -C "$2"', REPOSITORY, ref, dir]);
  execFileSync("pnpm", ["install", "--frozen-lockfile", "--offline"], { cwd: dir, stdio: "ignore" });
  return {
    dir,
    commit: git("rev-parse", "--short", ref),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
};

/** An OTLP/HTTP receiver that reads and drops what it is sent (a collector's cost is not the service's). */
const startSink = async () => {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      exports += 1;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

/** A process's CPU time so far (user + system), in µs. */
const cpuOf = async (pid: number): Promise<number> => {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_S) * 1e6;
};

const main = async (): Promise<void> => {
  const baseline = await checkoutBaseline();
  const sink = await startSink();
  const dirs: string[] = [];
  const services: { readonly label: string; readonly service: ServiceProcess }[] = [];
  try {
    const start = async (label: string, env: Record<string, string>, root?: string) => {
      const dir = await mkdtemp(join(tmpdir(), "sdwan-bench-tracing-"));
      dirs.push(dir);
      const service = await startServiceProcess({ ...ADMIN, SDWAN_DATA_DIR: dir, ...env }, root);
      for (let i = 0; i < STORED; i += 1) {
        const added = await service.call("POST", `${LIST_PATH}?force=true`, {
          body: {
            alias: `site-${String(i).padStart(3, "0")}`,
            orchestratorUrl: "https://vco.example.net/",
            apiKey: "k",
          },
        });
        if (added.status !== 200) throw new Error(`${label}: seeding answered ${added.status}`);
      }
      services.push({ label, service });
    };
    await start("before traces", {}, baseline.dir);
    // The same code again: how far two identical services drift apart in this run (the noise floor).
    await start("before traces, a second process (A/A)", {}, baseline.dir);
    await start("traces off (no OTEL_*)", {});
    await start("traces on (OTLP/HTTP, every span exported)", {
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: "500",
    });
    const bodies = await Promise.all(services.map(async ({ service }) => (await service.call("GET", LIST_PATH)).text));
    if (new Set(bodies).size !== 1) throw new Error("the services do not answer the same list");

    // Warm-up (JIT, the verified-credentials cache), then interleaved rounds in a rotating order.
    for (const { service } of services)
      await runAutocannon(`${service.url}${LIST_PATH}`, {
        headers: { authorization: AUTHORIZATION },
        connections: CONNECTIONS,
        seconds: 1,
      });
    const rps = services.map((): number[] => []);
    const cpuUs = services.map((): number[] => []);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let k = 0; k < services.length; k += 1) {
        const i = (k + round) % services.length;
        const { label, service } = services[i] as (typeof services)[number];
        const before = await cpuOf(service.pid);
        const summary = await runAutocannon(`${service.url}${LIST_PATH}`, {
          headers: { authorization: AUTHORIZATION },
          connections: CONNECTIONS,
          seconds: DURATION_S,
        });
        const used = (await cpuOf(service.pid)) - before;
        if (summary.errors > 0 || summary.non2xx > 0) throw new Error(`${label}: errors or non-2xx answers`);
        rps[i]?.push(summary.requests.average);
        cpuUs[i]?.push(used / summary.requests.total);
        process.stdout.write(
          `round ${round + 1} ${label}: ${summary.requests.average} req/s, ${Math.round(cpuUs[i]?.at(-1) ?? 0)} µs CPU/req\n`,
        );
      }
    }
    if (sink.exports() === 0) throw new Error("traces on exported nothing");
    // Ratios per round (the services measured minutes apart share that round's load), then their median and range.
    const paired = (a: number, b: number) => {
      const ratios = (cpuUs[a] ?? []).map((cpu, round) => cpu / (cpuUs[b]?.[round] ?? Number.NaN));
      return { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
    };
    const noise = paired(1, 0);
    const off = paired(2, 0);
    const on = paired(3, 2);
    // Zero cost: off is no further from before than 2 %, or than the A/A pair drifted apart in this run.
    const allowed = Math.max(0.02, Math.abs(noise.median - 1));
    const zeroCost = off.median - 1 <= allowed;
    const range = ({ min, max }: { min: number; max: number }) => `${min.toFixed(2)}–${max.toFixed(2)}`;
    const measure = (i: number) =>
      `${median(rps[i] ?? []).toFixed(0)} req/s, ${Math.round(median(cpuUs[i] ?? []))} µs CPU/req`;
    await writeBenchmarkSection(
      "tracing",
      [
        "## http-express: what traces cost",
        "",
        `\`pnpm --filter @sdwan-connections/http-express bench:tracing\` (\`packages/http-express/bench/tracing.bench.ts\`). ${await machineLine()}, load average ${loadavg()[0]?.toFixed(1)} at the end.`,
        `GET /connections (${STORED} connections, Basic auth, the embedded store) from four service processes in one run: the code before`,
        `traces (commit ${baseline.commit}, exported from git beside this one) twice, to measure how far two identical processes drift apart`,
        "in this run (A/A), this code with no OTEL_* variable, and this code exporting every span (a server span and its store span per",
        "request) over OTLP/HTTP to a receiver that drops them. autocannon in a child process,",
        `${CONNECTIONS} connections, ${DURATION_S} s per run, ${ROUNDS} interleaved rounds in rotating order; each service's own CPU time per`,
        "request (/proc), compared within each round (the round's load is shared), median and range of those ratios.",
        "",
        markdownTable(
          ["Row", "Measure (medians)", "Compared (CPU per request, ratio per round: median, range)"],
          [
            [services[0]?.label ?? "", measure(0), "baseline"],
            [services[1]?.label ?? "", measure(1), `${noise.median.toFixed(3)}× (${range(noise)}): the noise floor`],
            [
              services[2]?.label ?? "",
              measure(2),
              `**${off.median.toFixed(3)}×** (${range(off)}) before traces; target: within ${(allowed * 100).toFixed(1)} % (2 %, or the A/A drift if larger): **${zeroCost ? "met" : "missed"}**`,
            ],
            [
              services[3]?.label ?? "",
              measure(3),
              `**${on.median.toFixed(2)}×** (${range(on)}) traces off: what every traced request costs (reported)`,
            ],
          ],
        ),
      ].join("\n"),
    );
  } finally {
    await Promise.all(services.map(({ service }) => service.stop()));
    await sink.close();
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    await baseline.remove();
  }
};

await main();
