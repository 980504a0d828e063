// `pnpm bench`: `apply -f` of configuration files of 1,000, 10,000 and 100,000 connections (--force: the
// store's work, no orchestrator), in this process through the CLI's own entry (file read, decoding, plan,
// writes on the embedded store). Entries per second should not fall as the file grows: apply is linear.
// A second apply of the same file (everything unchanged) is timed too.
// Then, right after each of 10,000 and 100,000, the same as a real process (the installed command, `dist/pack`), the
// file YAML as `export` writes it and one SDWAN_APIKEY_… variable per connection in the process's environment: issue
// 27 found 187-200 s there for 100,000 (each read of process.env scans the whole environment, and yaml's Node build
// read it twice a token); issue 40 wants it within 30 s. Compared with the in-process apply of the same size, in the
// same run, with the load at each. Writes its tables into docs/reliability.md.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import {
  machineLine,
  markdownTable,
  RELIABILITY_FILE,
  sized,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";
import type { ConnectionSummary } from "@sdwan-connections/core";
import { runCli } from "../src/cli.js";
import { exportConfiguration } from "../src/configuration-file.js";

const SIZES = sized([1_000, 10_000, 100_000], [100]);
const PROCESS_SIZES = sized([10_000, 100_000], [100]);
// The installed command, as `pnpm bench` builds it first.
const BIN = fileURLToPath(new URL("../dist/pack/lib/main.js", import.meta.url));
const MASTER_KEY = Buffer.alloc(32, 7).toString("base64");
const discard = { isTTY: false, write: () => true };

const entriesOf = (size: number) =>
  Array.from({ length: size }, (_, i) => ({
    alias: `conn-${i}`,
    orchestratorUrl: `https://vco${i % 97}.example.net/`,
  }));
// Short keys: Linux takes at most 6 MiB of environment and arguments at exec (100,000 variables of 40 bytes fit).
const keysOf = (size: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: size }, (_, i) => [`SDWAN_APIKEY_CONN_2D${i}`, `${i}`.padStart(20, "k")]));

const applyOnce = async (file: string, env: Record<string, string>): Promise<number> => {
  const started = performance.now();
  const code = await runCli(["apply", "-f", file, "--force"], {
    stdout: discard,
    stderr: { isTTY: false, write: (text: string) => process.stderr.write(text) },
    readSecret: async () => undefined,
    env,
  });
  if (code !== 0) throw new Error(`apply exited ${code}`);
  return performance.now() - started;
};

/**
 * `apply -f file --force` as a process with `env` as its whole environment. The variables are exported by a
 * shell that first raises its stack limit, which is what bounds the environment a program is started with
 * (8 MiB of stack: 2 MiB of environment, about 50,000 short variables).
 */
const applyAsProcess = async (root: string, file: string, env: Record<string, string>): Promise<number> => {
  const variables = join(root, "variables.sh");
  await writeFile(
    variables,
    Object.entries(env)
      .map(([name, value]) => `${name}='${value}'\n`)
      .join(""),
  );
  const started = performance.now();
  const child = spawn(
    "/bin/sh",
    [
      "-c",
      'ulimit -s 65536 && set -a && . "$0" && exec "$@"',
      variables,
      process.execPath,
      BIN,
      "apply",
      "-f",
      file,
      "--force",
    ],
    { env: { PATH: process.env["PATH"] ?? "" }, stdio: ["ignore", "ignore", "inherit"] },
  );
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`apply exited ${code}`);
  return performance.now() - started;
};

// The machine may be shared: its load is part of the figures.
const loadAtStart = loadavg()[0] as number;
const rows: (string | number)[][] = [];
const inProcess = new Map<number, number>();
const processRows: (string | number)[][] = [];
// The same size as a real process, right after the in-process apply of it (A, then B, in one run and load).
const asProcess = async (size: number): Promise<void> => {
  const root = await mkdtemp(join(tmpdir(), "sdwan-apply-bench-"));
  try {
    // The file `export` writes: YAML, each key `env:SDWAN_APIKEY_<ALIAS>`.
    const file = join(root, "connections.yaml");
    await writeFile(file, await exportConfiguration(entriesOf(size) as ConnectionSummary[], undefined, "yaml"));
    const env = {
      SDWAN_DATA_DIR: join(root, "data"),
      SDWAN_LOG_LEVEL: "error",
      SDWAN_MASTER_KEY: MASTER_KEY,
      ...keysOf(size),
    };
    const took = await applyAsProcess(root, file, env);
    const baseline = inProcess.get(size) as number;
    processRows.push([
      size.toLocaleString("en"),
      size.toLocaleString("en"),
      (took / 1000).toFixed(1),
      Math.round(size / (took / 1000)),
      (baseline / 1000).toFixed(1),
      `${(took / baseline).toFixed(2)}×`,
      (loadavg()[0] as number).toFixed(1),
    ]);
    process.stdout.write(`process, ${size}: ${took.toFixed(0)} ms (in this process ${baseline.toFixed(0)} ms)\n`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
};

for (const size of SIZES) {
  const root = await mkdtemp(join(tmpdir(), "sdwan-apply-bench-"));
  try {
    const keys = keysOf(size);
    const entries = entriesOf(size).map((entry) => ({
      ...entry,
      apiKey: `env:SDWAN_APIKEY_CONN_2D${entry.alias.slice(5)}`,
    }));
    const file = join(root, "connections.json");
    await writeFile(file, JSON.stringify({ connections: entries }));
    const env = { SDWAN_DATA_DIR: join(root, "data"), SDWAN_LOG_LEVEL: "error", SDWAN_MASTER_KEY: MASTER_KEY, ...keys };
    const first = await applyOnce(file, env);
    const again = await applyOnce(file, env);
    inProcess.set(size, first);
    const fileBytes = (await stat(file)).size;
    rows.push([
      size.toLocaleString("en"),
      `${(fileBytes / 2 ** 20).toFixed(1)} MiB`,
      (first / 1000).toFixed(1),
      Math.round(size / (first / 1000)),
      (again / 1000).toFixed(1),
      Math.round(size / (again / 1000)),
    ]);
    process.stdout.write(`${size}: ${first.toFixed(0)} ms, again ${again.toFixed(0)} ms\n`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  if (PROCESS_SIZES.includes(size)) await asProcess(size);
}

const table = markdownTable(["connections", "file", "apply s", "entries/s", "again (unchanged) s", "entries/s"], rows);
const processTable = markdownTable(
  [
    "connections (YAML, as export writes)",
    "SDWAN_APIKEY_… variables",
    "apply as a process s",
    "entries/s",
    "in this process s (JSON, above)",
    "ratio",
    "load average",
  ],
  processRows,
);
process.stdout.write(`${table}\n\n${processTable}\n`);
// Issue 19 wants these figures with the other pressure results; the section's text is in docs/reliability.md.
const load = `load average ${loadAtStart.toFixed(1)} at the start, ${(loadavg()[0] as number).toFixed(1)} at the end`;
await writeBenchmarkSection(
  "reliability:apply-size",
  `Last run, ${await machineLine()}, ${load}:\n\n${table}\n\nAs a process:\n\n${processTable}\n`,
  RELIABILITY_FILE,
);
