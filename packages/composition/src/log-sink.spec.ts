import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { lazyLogSink } from "./log-sink.js";

const collect = () => {
  const lines: string[] = [];
  const destination = new Writable({
    write: (chunk: Buffer, _encoding, callback) => {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { lines, destination };
};

describe("lazyLogSink", () => {
  it("writes the lines in order, at the level, redacted as the logger does, once flushed", async () => {
    const { lines, destination } = collect();
    const sink = lazyLogSink("warn", destination);
    sink.info({ alias: "lab" }, "below the level");
    sink.warn({ apiKey: "a-secret" }, "first");
    sink.error({ alias: "lab" }, "second");
    await sink.flush();
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: "warn", msg: "first", apiKey: "[redacted]" }),
      expect.objectContaining({ level: "error", msg: "second", alias: "lab" }),
    ]);
  });

  it("flushes at once when nothing was logged", async () => {
    const { lines, destination } = collect();
    await lazyLogSink("info", destination).flush();
    expect(lines).toEqual([]);
  });
});
