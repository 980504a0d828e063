/**
 * `pnpm bench:events-replay`: what a replay from `Last-Event-ID` costs (issue 40), on the embedded store, the
 * service its own process (`pnpm start`'s). Its trail holds TRAIL changes; a stream resuming REPLAYED events back
 * from its end is timed from its request to its first event (time to first byte of the replay), against the same
 * stream opened live, from its request to its `: connected` (the baseline), in interleaved rounds (A B A B …), the
 * medians compared. Then the whole replay's time, and the same replay at the end of a trail of SHORT_TRAIL
 * (linear in what is sent, not in the trail). Goal: the replay's first event within 2× the live stream's opening.
 * Results go to docs/benchmarks.md (section "events-replay").
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import {
  machineLine,
  markdownTable,
  percentile,
  sized,
  startServiceProcess,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";
import { ADMIN, BASE, basic } from "../test/harness.js";

const TRAIL = Number(process.env["BENCH_TRAIL"] ?? sized(20_000, 300));
const REPLAYED = sized(2_000, 100);
// The shorter trail: a little more than the replay.
const SHORT_TRAIL = sized(2_500, 150);
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? sized(9, 1));
const EVENTS = `${BASE}/events`;

const loadAverage = async () => (await readFile("/proc/loadavg", "utf8")).split(" ").slice(0, 3).join(", ");

/** `count` adds as the embedded store writes them, one a millisecond, ending a minute ago: their lines and ids. */
const trailOf = (count: number) => {
  const start = Date.now() - 60_000 - count;
  const ids: string[] = [];
  const lines = Array.from({ length: count }, (_, i) => {
    const at = new Date(start + i);
    const id = `${at.toISOString()}-${i.toString(16).padStart(6, "0")}beef`;
    ids.push(id);
    return `${JSON.stringify({ id, at: at.toISOString(), actor: "admin", requestId: null, action: "add", alias: `c${i % 500}`, fields: ["alias", "orchestratorUrl", "apiKey"], forced: false, validation: "valid", outcome: "succeeded", failure: null, detail: null, version: i + 1 })}\n`;
  });
  return { text: lines.join(""), ids };
};

/** Opens a stream and reads it until `until` appears in what came; answers the ms it took from the request, then closes it. */
const timeTo = async (
  url: string,
  headers: Record<string, string>,
  until: (text: string) => boolean,
): Promise<number> => {
  const controller = new AbortController();
  const started = performance.now();
  const response = await fetch(url, {
    headers: { authorization: basic(ADMIN), ...headers },
    signal: controller.signal,
  });
  if (response.status !== 200 || response.body === null)
    throw new Error(`stream answered ${response.status}: ${await response.text()}`);
  const decoder = new TextDecoder();
  let text = "";
  try {
    for await (const chunk of response.body) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
      if (until(text)) return performance.now() - started;
      // Only the tail is needed to see a marker.
      if (text.length > 1 << 20) text = text.slice(-4096);
    }
    throw new Error("the stream ended first");
  } finally {
    controller.abort();
  }
};

const main = async (): Promise<void> => {
  const loadBefore = await loadAverage();
  const dir = await mkdtemp(join(tmpdir(), "sdwan-bench-replay-"));
  const measure = async (trailLength: number) => {
    const data = join(dir, `trail-${trailLength}`);
    await mkdir(data, { mode: 0o700 });
    const { text, ids } = trailOf(trailLength);
    await writeFile(join(data, "audit.jsonl"), text, { mode: 0o600 });
    const service = await startServiceProcess({
      SDWAN_DATA_DIR: data,
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_AUDIT_MAX_ENTRIES: String(trailLength * 2),
    });
    try {
      const url = `${service.url}${EVENTS}`;
      const from = { "last-event-id": ids[trailLength - REPLAYED - 1] as string };
      const lastId = ids.at(-1) as string;
      const live = () => timeTo(url, {}, (seen) => seen.includes(": connected"));
      const firstEvent = () => timeTo(url, from, (seen) => seen.includes("\nid: ") || seen.startsWith("id: "));
      const whole = () => timeTo(url, from, (seen) => seen.includes(`id: ${lastId}\n`));
      // Warm-up: code loaded, the trail's index built.
      await live();
      await whole();
      const samples = { live: [] as number[], first: [] as number[], whole: [] as number[] };
      for (let round = 0; round < ROUNDS; round += 1) {
        samples.live.push(await live());
        samples.first.push(await firstEvent());
        samples.whole.push(await whole());
      }
      return { median: (key: keyof typeof samples) => percentile(samples[key], 0.5) };
    } finally {
      await service.stop();
    }
  };
  try {
    const big = await measure(TRAIL);
    const small = await measure(SHORT_TRAIL);
    const loadAfter = await loadAverage();
    const ms = (value: number) => value.toFixed(1);
    const markdown = [
      "## events-replay: a replay from Last-Event-ID against the same stream live",
      "",
      `${await machineLine()}. \`pnpm --filter @sdwan-connections/http-express bench:events-replay\` (\`bench/events-replay.bench.ts\`), issue 40:`,
      `the service its own process (\`pnpm start\`'s, from sources) on the embedded store, its trail ${TRAIL.toLocaleString("en")} changes.`,
      `A stream resuming ${REPLAYED.toLocaleString("en")} events before the trail's end, against the same stream opened live; ${ROUNDS} interleaved`,
      `rounds (live, first replayed event, whole replay), medians, after one warm-up of each. Load average (1, 5, 15 min) ${loadBefore} before,`,
      `${loadAfter} after, on 2 cores shared with other work.`,
      "",
      markdownTable(
        ["", `trail of ${TRAIL.toLocaleString("en")}`, `trail of ${SHORT_TRAIL.toLocaleString("en")}`],
        [
          ["live stream open (`: connected`), ms: baseline", ms(big.median("live")), ms(small.median("live"))],
          ["replay, first event, ms", ms(big.median("first")), ms(small.median("first"))],
          [
            "first event ÷ live",
            `${(big.median("first") / big.median("live")).toFixed(2)}×`,
            `${(small.median("first") / small.median("live")).toFixed(2)}×`,
          ],
          [
            `replay, all ${REPLAYED.toLocaleString("en")} events, ms`,
            ms(big.median("whole")),
            ms(small.median("whole")),
          ],
        ],
      ),
      "",
      "Goal: the first replayed event within 2× the live stream's opening, and the replay's time the same whatever the",
      "trail's length (it reads the pages it sends, seeking with the index of `audit.jsonl`).",
    ].join("\n");
    process.stdout.write(`${markdown}\n`);
    await writeBenchmarkSection("events-replay", markdown);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

await main();
