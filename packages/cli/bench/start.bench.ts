// `pnpm bench`: how fast the installed command starts. `--help` and `list` on an embedded store of 20
// connections, run from the bundle (dist/pack, what `npm install -g` installs), each compared with a bare
// `node -e ''` measured in the same run, interleaved (every command once a round) so that the machine's load
// weighs on all alike. Writes its table, with the load average, into docs/benchmarks.md.
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  machineLine,
  markdownTable,
  median,
  percentile,
  sized,
  timeEach,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";

const BIN = fileURLToPath(new URL("../dist/pack/lib/main.js", import.meta.url));
const ROUNDS = sized(40, 2);
const CONNECTIONS = 20;
// The goal (issue 40): each at most this many times a bare node.
const GOAL = 1.3;
const run = promisify(execFile);

const dataDir = await mkdtemp(join(tmpdir(), "sdwan-cli-bench-"));
try {
  const env = { PATH: process.env["PATH"] ?? "", SDWAN_DATA_DIR: join(dataDir, "data"), SDWAN_LOG_LEVEL: "warn" };
  const aliases = Array.from({ length: CONNECTIONS }, (_, i) => `conn-${i}`);
  const file = join(dataDir, "connections.yaml");
  await writeFile(
    file,
    `connections:\n${aliases.map((alias, i) => `  - alias: ${alias}\n    orchestratorUrl: https://vco${i % 7}.example.net/\n    apiKey: env:SDWAN_APIKEY_C${i}\n`).join("")}`,
  );
  await run(process.execPath, [BIN, "apply", "-f", file, "--force"], {
    env: { ...env, ...Object.fromEntries(aliases.map((_, i) => [`SDWAN_APIKEY_C${i}`, `key-${i}`])) },
  });

  const commands = {
    "node -e ''": ["-e", ""],
    "sdwan-connections --help": [BIN, "--help"],
    [`sdwan-connections list (${CONNECTIONS} connections)`]: [BIN, "list"],
    [`sdwan-connections list -o table (${CONNECTIONS} connections)`]: [BIN, "list", "-o", "table"],
  };
  const loadsBefore = loadavg();
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, args] of Object.entries(commands))
      samples[name]?.push(...(await timeEach(1, () => run(process.execPath, args, { env }))));
  }
  // Each round's time over the same round's bare node, then their median: a burst of load from elsewhere weighs on
  // both sides of a ratio alike.
  const bare = samples["node -e ''"] ?? [];
  const ratioOf = (durations: readonly number[]): number =>
    median(durations.map((duration, round) => duration / (bare[round] ?? duration)));
  const rows = Object.entries(samples).map(([name, durations]) => [
    `\`${name}\``,
    median(durations).toFixed(0),
    percentile(durations, 0.9).toFixed(0),
    `${ratioOf(durations).toFixed(2)}×`,
    name.startsWith("node") ? "" : ratioOf(durations) <= GOAL ? "yes" : "no",
  ]);
  const loads = (values: readonly number[]): string => values.map((value) => value.toFixed(1)).join(", ");
  const table = markdownTable(
    ["command", "median ms", "p90 ms", "× bare node (median of each round's ratio)", `within ${GOAL}×`],
    rows,
  );
  process.stdout.write(`${table}\n`);
  await writeBenchmarkSection(
    "cli-start",
    `## cli: how fast the installed command starts

\`pnpm --filter @sdwan-connections/cli bench\` (packages/cli/bench/start.bench.ts): the bundle that
\`npm install -g\` installs (dist/pack), started ${ROUNDS} times per command, interleaved with a bare
\`node -e ''\` in the same run (each command once a round); the goal is at most ${GOAL}× bare node for
\`--help\` and \`list\`. \`--help\` prints texts the bundle's entry carries (made from the commands at build
time) and loads no chunk; \`list\` loads the CLI's chunk, core, the composition's container-free entry (\`openService\`: no inversify) and the
embedded store, and opens the store (pino only at a first log line; PostgreSQL's driver, YAML and the
orchestrator's HTTP client only when used). On Node ≥ 22.1 the command turns on Node's compile cache
(\`module.enableCompileCache\`), so a second start compiles nothing; Node 20, measured here, has no such API.
Load average (1, 5, 15 min) ${loads(loadsBefore)} before, ${loads(loadavg())} after: a 2-core machine shared
with other work, so the ratios, not the milliseconds, are what compare.
${await machineLine()}.

${table}
`,
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
