import { Writable } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "./logger.js";

const collect = () => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write: (chunk: Buffer, _encoding, callback) => {
      lines.push(
        ...chunk
          .toString()
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Record<string, unknown>),
      );
      callback();
    },
  });
  return { lines, destination };
};

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("createLogger's time", () => {
  it("is each line's millisecond in ISO form, formatted once per millisecond however many lines it holds", () => {
    const formatted = vi.spyOn(Date.prototype, "toISOString");
    vi.useFakeTimers({ now: Date.parse("2026-11-28T10:00:00.123Z"), toFake: ["Date"] });
    const { lines, destination } = collect();
    const logger = createLogger("info", destination);
    for (let i = 0; i < 3; i += 1) logger.info({ i }, "request");
    vi.advanceTimersByTime(1);
    logger.info({ i: 3 }, "request");
    expect(lines.map(({ time }) => time)).toEqual([
      "2026-11-28T10:00:00.123Z",
      "2026-11-28T10:00:00.123Z",
      "2026-11-28T10:00:00.123Z",
      "2026-11-28T10:00:00.124Z",
    ]);
    expect(formatted).toHaveBeenCalledTimes(2);
  });
});
