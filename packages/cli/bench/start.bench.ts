// `pnpm bench`: how fast the installed command starts. `--help` and `list` on an embedded store of 20
// connections, run as installed (dist/pack packed by npm and installed from the tarball with `npm install -g`, as
// test/install.int.spec.ts does; started by its bin), each compared with a bare `node -e ''` measured in the same
// run, interleaved (every command once a round) so that the machine's load weighs on all alike. Writes its table,
// with the load average, into docs/benchmarks.md.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
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
  SMOKE,
  timeEach,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const ROUNDS = sized(40, 2);
const CONNECTIONS = 20;
// The goal (issue 40): each at most this many times a bare node.
const GOAL = 1.3;
const run = promisify(execFile);

const dataDir = await mkdtemp(join(tmpdir(), "sdwan-cli-bench-"));
try {
  await run("npm", ["pack", "./dist/pack", "--pack-destination", dataDir], { cwd: PACKAGE_DIR });
  const [tarball] = (await readdir(dataDir)).filter((name) => name.endsWith(".tgz"));
  const prefix = join(dataDir, "prefix");
  await run("npm", [
    ...["install", "-g", "--offline", "--no-audit", "--no-fund", "--prefix", prefix],
    ...["--cache", join(dataDir, "npm-cache"), join(dataDir, tarball ?? "")],
  ]);
  const BIN = join(prefix, "bin", "sdwan-connections");
  // A user's HOME: the command keeps its code cache there (~/.cache), written by each command's first run.
  const home = { HOME: join(dataDir, "home") };
  const env = { PATH: process.env["PATH"] ?? "", SDWAN_DATA_DIR: join(dataDir, "data"), SDWAN_LOG_LEVEL: "warn" };
  const aliases = Array.from({ length: CONNECTIONS }, (_, i) => `conn-${i}`);
  const file = join(dataDir, "connections.yaml");
  await writeFile(
    file,
    `connections:\n${aliases.map((alias, i) => `  - alias: ${alias}\n    orchestratorUrl: https://vco${i % 7}.example.net/\n    apiKey: env:SDWAN_APIKEY_C${i}\n`).join("")}`,
  );
  await run(BIN, ["apply", "-f", file, "--force"], {
    env: { ...env, ...Object.fromEntries(aliases.map((_, i) => [`SDWAN_APIKEY_C${i}`, `key-${i}`])) },
  });

  // A V8 startup snapshot that holds nothing of ours: what starting from any user snapshot costs on this Node (the
  // blob, read at every start, is Node's own heap and more; Node 20 takes it only from --snapshot-blob).
  const emptySnapshot = join(dataDir, "empty-snapshot.blob");
  // Not counted by callgrind: V8 under valgrind sees other CPU features, and refuses a blob built outside it.
  const SNAPSHOT_ROW = "node --snapshot-blob: a user snapshot of nothing";
  const snapshotEntry = join(dataDir, "empty-snapshot.cjs");
  await writeFile(snapshotEntry, 'require("node:v8").startupSnapshot.setDeserializeMainFunction(() => {});\n');
  await run(process.execPath, ["--snapshot-blob", emptySnapshot, "--build-snapshot", snapshotEntry]);
  // Each: the file run, its arguments and whether it has a HOME (a code cache).
  const commands: Record<string, readonly [string, readonly string[], boolean]> = {
    "node -e ''": [process.execPath, ["-e", ""], false],
    // Only the parts of Node that `list` cannot do without: the floor of any command built on them.
    // Written as the command writes an answer to a pipe: to the descriptor (process.stdout there is a net.Socket).
    "node -e: crypto, fs/promises, vm and a write to stdout's descriptor": [
      process.execPath,
      [
        "-e",
        'require("node:crypto"); require("node:fs/promises"); require("node:vm"); require("node:fs").writeSync(1, "")',
      ],
      false,
    ],
    [SNAPSHOT_ROW]: [process.execPath, ["--snapshot-blob", emptySnapshot], false],
    "sdwan-connections --help": [BIN, ["--help"], true],
    [`sdwan-connections list (${CONNECTIONS} connections)`]: [BIN, ["list"], true],
    [`sdwan-connections list -o table (${CONNECTIONS} connections)`]: [BIN, ["list", "-o", "table"], true],
    [`sdwan-connections list, no HOME: no code cache`]: [BIN, ["list"], false],
  };
  const start = ([file, args, cached]: readonly [string, readonly string[], boolean]) =>
    run(file, args, { env: cached ? { ...env, ...home } : env });
  // A first round unmeasured: each command's first run writes its code cache, as after an install.
  for (const command of Object.values(commands)) await start(command);
  const loadsBefore = loadavg();
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [name, command] of Object.entries(commands))
      samples[name]?.push(...(await timeEach(1, () => start(command))));
  }
  const loadsAfter = loadavg();
  // Instructions, counted by callgrind (valgrind), every thread: what the machine's load does not move (a run's GC and
  // hash seeds still move them a few percent: the median of 3). Only where valgrind is installed, not in the smoke run.
  const instructions = async (started: readonly [string, readonly string[], boolean], attempt: number) => {
    const [file, args, cached] = started;
    // Named by command and attempt (an argument may hold what a file name cannot).
    const out = join(dataDir, `callgrind-${Object.values(commands).indexOf(started)}-${attempt}`);
    // The bin's own form (`#!/usr/bin/env node`), without the shell: node runs main.js.
    const command = file === BIN ? [process.execPath, await realpath(BIN)] : [file];
    await run("valgrind", ["--tool=callgrind", `--callgrind-out-file=${out}`, ...command, ...args], {
      env: cached ? { ...env, ...home } : env,
    });
    return Number(/^totals: (\d+)/m.exec(await readFile(out, "utf8"))?.[1]);
  };
  const counted = SMOKE
    ? undefined
    : await run("valgrind", ["--version"]).then(
        async () => {
          const counts: Record<string, number> = {};
          for (const [name, command] of Object.entries(commands))
            if (name !== SNAPSHOT_ROW)
              counts[name] = median([
                await instructions(command, 0),
                await instructions(command, 1),
                await instructions(command, 2),
              ]);
          return counts;
        },
        () => undefined,
      );
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
    ...(counted === undefined
      ? []
      : [counted[name] === undefined ? "" : `${(counted[name] / (counted["node -e ''"] ?? NaN)).toFixed(2)}×`]),
    name.startsWith("node") || name.includes("no HOME") ? "" : ratioOf(durations) <= GOAL ? "yes" : "no",
  ]);
  const loads = (values: readonly number[]): string => values.map((value) => value.toFixed(1)).join(", ");
  const table = markdownTable(
    [
      "command",
      "median ms",
      "p90 ms",
      "× bare node (median of each round's ratio)",
      ...(counted === undefined ? [] : ["instructions × bare node (callgrind, median of 3)"]),
      `within ${GOAL}×`,
    ],
    rows,
  );
  process.stdout.write(`${table}\n`);
  await writeBenchmarkSection(
    "cli-start",
    `## cli: how fast the installed command starts

\`pnpm --filter @sdwan-connections/cli bench\` (packages/cli/bench/start.bench.ts): the command as
\`npm install -g\` installs it (dist/pack packed, installed from the tarball, started by its bin), started
${ROUNDS} times per command, interleaved with a bare \`node -e ''\` in the same run (each command once a round);
the goal is at most ${GOAL}× bare node for \`--help\` and \`list\`. The command is CommonJS files: \`main.js\`
prints the help texts it carries (made from the commands at build time) and loads nothing else; every other command
runs \`cli.js\` (core, the composition's container-free entry, the embedded store; PostgreSQL's driver, YAML,
OpenID, pino and the orchestrator's HTTP client are files of their own, read only when used) through V8's code
cache, which each command's first run writes under \`~/.cache/sdwan-connections\` (an unmeasured first round here,
as after an install). The last row is \`list\` without HOME, so without a cache: what every start compiles without
one. The second row is a bare node that loads only what \`list\` needs of Node itself (\`node:crypto\` for the
master-key check, \`node:fs/promises\` for the store, \`node:vm\` for the code cache) and writes to its stdout's
descriptor, as the command writes an answer to a pipe (here): the floor of a command built on them. The third starts node from a V8 startup snapshot that holds
nothing (\`node --build-snapshot\`): what loading any user snapshot costs before it has saved anything (not counted:
under valgrind V8 refuses a blob built outside it).
Load average (1, 5, 15 min) ${loads(loadsBefore)} before, ${loads(loadsAfter)} after: a 2-core machine shared
with other work, so the ratios, not the milliseconds, are what compare; the instructions (counted where valgrind is
installed) are what no load moves.
${await machineLine()}.

${table}
`,
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
