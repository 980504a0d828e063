import { readFile, writeFile } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

/** docs/benchmarks.md at the repository root. */
export const BENCHMARKS_FILE = fileURLToPath(new URL("../../../docs/benchmarks.md", import.meta.url));

/**
 * A smoke run (`SDWAN_BENCH_SMOKE=1`, as the test command runs every benchmark): the same code at a size of
 * seconds, so that no benchmark rots unseen between full runs; it writes no figures into the docs.
 */
export const SMOKE = process.env["SDWAN_BENCH_SMOKE"] === "1";

/** `full` in a benchmark run, `smoke` in a smoke run. */
export const sized = <T>(full: T, smoke: T): T => (SMOKE ? smoke : full);

/**
 * Replaces the section `id` of docs/benchmarks.md (between its
 * `<!-- bench:id:start -->` and `<!-- bench:id:end -->` markers) with
 * `markdown`, appending the section when it is not there yet. Each benchmark
 * owns one section, so they can run in any order.
 */
export const writeBenchmarkSection = async (id: string, markdown: string, file = BENCHMARKS_FILE): Promise<void> => {
  if (SMOKE) {
    process.stdout.write(`smoke run, section ${id} not written:\n${markdown.trim()}\n`);
    return;
  }
  const start = `<!-- bench:${id}:start -->`;
  const end = `<!-- bench:${id}:end -->`;
  const current = await readFile(file, "utf8").catch(() => "# Benchmarks\n");
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  const next =
    from >= 0 && to > from
      ? current.slice(0, from) + block + current.slice(to + end.length)
      : `${current.trimEnd()}\n\n${block}\n`;
  await writeFile(file, next);
};

/** docs/reliability.md at the repository root. */
export const RELIABILITY_FILE = fileURLToPath(new URL("../../../docs/reliability.md", import.meta.url));

/**
 * A test's figures: written into their section of docs/reliability.md only when asked (SDWAN_FIGURES=1, as
 * `pnpm figures` runs the tests), so that an ordinary test run leaves the working tree as it was; printed
 * to the test's log either way.
 */
export const reportFigures = async (id: string, markdown: string): Promise<void> => {
  process.stdout.write(`figures ${id}:\n${markdown.trim()}\n`);
  if (process.env["SDWAN_FIGURES"] === "1") await writeBenchmarkSection(id, markdown, RELIABILITY_FILE);
};

/** The value at quantile `q` (0..1) of `samples`, nearest-rank. */
export const percentile = (samples: readonly number[], q: number): number => {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
};

/** The middle value of `samples` (nearest-rank). */
export const median = (samples: readonly number[]): number => percentile(samples, 0.5);

/** Runs `operation` `iterations` times one after another; returns each duration in ms. */
export const timeEach = async (iterations: number, operation: (i: number) => Promise<unknown>): Promise<number[]> => {
  const durations: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const started = performance.now();
    await operation(i);
    durations.push(performance.now() - started);
  }
  return durations;
};

/** Operations per second for a list of per-operation durations in ms. */
export const opsPerSecond = (durationsMs: readonly number[]): number =>
  durationsMs.length / (durationsMs.reduce((sum, d) => sum + d, 0) / 1000);

/** A markdown table from a header row and data rows. */
export const markdownTable = (header: readonly string[], rows: readonly (readonly (string | number)[])[]): string =>
  [header, header.map(() => "---"), ...rows].map((row) => `| ${row.join(" | ")} |`).join("\n");

/** Describes the machine a benchmark ran on, for the report. */
export const machineLine = async (): Promise<string> => {
  const os = await import("node:os");
  return `Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${new Date().toISOString().slice(0, 10)}`;
};

export {
  SERVICE_SOURCES_ENV,
  startServiceProcess,
  startSimulatorProcess,
  type ServiceProcess,
} from "./service-process.js";
export { measureMemory, runAutocannon } from "./load.js";
