// `pnpm bench`: `apply -f` of configuration files of 1,000, 10,000 and 100,000 connections (--force: the
// store's work, no orchestrator), in this process through the CLI's own entry (file read, decoding, plan,
// writes on the embedded store). Entries per second should not fall as the file grows: apply is linear.
// A second apply of the same file (everything unchanged) is timed too. Writes its table into docs/reliability.md.
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { machineLine, markdownTable, RELIABILITY_FILE, writeBenchmarkSection } from "@sdwan-connections/bench-kit";
import { runCli } from "../src/cli.js";

const SIZES = [1_000, 10_000, 100_000] as const;
const discard = { isTTY: false, write: () => true };

const applyOnce = async (file: string, env: Record<string, string>): Promise<number> => {
  const started = performance.now();
  const code = await runCli(["apply", "-f", file, "--force"], { stdout: discard, stderr: { isTTY: false, write: (text: string) => process.stderr.write(text) }, readSecret: async () => undefined, env });
  if (code !== 0) throw new Error(`apply exited ${code}`);
  return performance.now() - started;
};

const rows: (string | number)[][] = [];
for (const size of SIZES) {
  const root = await mkdtemp(join(tmpdir(), "sdwan-apply-bench-"));
  try {
    const entries = Array.from({ length: size }, (_, i) => ({ alias: `conn-${i}`, orchestratorUrl: `https://vco${i % 97}.example.net/`, apiKey: `env:SDWAN_APIKEY_C${i}` }));
    const file = join(root, "connections.json");
    await writeFile(file, JSON.stringify({ connections: entries }));
    const env = {
      SDWAN_DATA_DIR: join(root, "data"),
      SDWAN_LOG_LEVEL: "error",
      SDWAN_MASTER_KEY: Buffer.alloc(32, 7).toString("base64"),
      ...Object.fromEntries(entries.map((_, i) => [`SDWAN_APIKEY_C${i}`, `${"t".repeat(180)}-${i}`])),
    };
    const first = await applyOnce(file, env);
    const again = await applyOnce(file, env);
    const fileBytes = (await stat(file)).size;
    rows.push([size.toLocaleString("en"), `${(fileBytes / 2 ** 20).toFixed(1)} MiB`, (first / 1000).toFixed(1), Math.round(size / (first / 1000)), (again / 1000).toFixed(1), Math.round(size / (again / 1000))]);
    process.stdout.write(`${size}: ${first.toFixed(0)} ms, again ${again.toFixed(0)} ms\n`);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
const table = markdownTable(["connections", "file", "apply s", "entries/s", "again (unchanged) s", "entries/s"], rows);
process.stdout.write(`${table}\n`);
// Issue 19 wants these figures with the other pressure results; the section's text is in docs/reliability.md.
await writeBenchmarkSection("reliability:apply-size", `Last run, ${await machineLine()}:\n\n${table}\n`, RELIABILITY_FILE);
