import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";

const AUTOCANNON = createRequire(import.meta.url).resolve("autocannon/autocannon.js");

/** The part of autocannon's JSON summary the benchmarks read. */
export interface AutocannonSummary {
  readonly requests: { readonly average: number; readonly total: number };
  readonly latency: { readonly p50: number; readonly p99: number };
  readonly throughput: { readonly total: number };
  readonly errors: number;
  readonly non2xx: number;
}

/** One autocannon run against `url`, in a child process so that it does not share this process's CPU. */
export const runAutocannon = async (
  url: string,
  options: { readonly headers?: Record<string, string>; readonly connections: number; readonly seconds: number },
): Promise<AutocannonSummary> => {
  const args = [AUTOCANNON, "-j", "-c", String(options.connections), "-d", String(options.seconds)];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}=${value}`);
  const child = spawn(process.execPath, [...args, url], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  await once(child, "exit");
  return JSON.parse(out) as AutocannonSummary;
};

/**
 * Runs `work` while sampling memory every 2 ms: its duration and the peaks
 * (heap, array buffers, RSS) above the starting point (after a GC, when node
 * runs with --expose-gc).
 */
export const measureMemory = async <A>(work: () => Promise<A>) => {
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  let peakBuffers = before.arrayBuffers;
  const sample = () => {
    const now = process.memoryUsage();
    peakHeap = Math.max(peakHeap, now.heapUsed);
    peakRss = Math.max(peakRss, now.rss);
    peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
  };
  const sampler = setInterval(sample, 2);
  const started = performance.now();
  const result = await work();
  const durationMs = performance.now() - started;
  clearInterval(sampler);
  sample();
  return {
    result,
    durationMs,
    heapGrowth: peakHeap - before.heapUsed,
    buffersGrowth: peakBuffers - before.arrayBuffers,
    rssGrowth: peakRss - before.rss,
    peakRss,
  };
};
