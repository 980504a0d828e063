import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BEAT_MS, everyBeat } from "./beat.js";

describe("everyBeat", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("runs looks of 1, 2 and 4 beats on one timer, each at its own period from its start, and stops it with the last", () => {
    const runs = { one: 0, two: 0, four: 0 };
    const stops = [
      everyBeat(BEAT_MS, () => (runs.one += 1)),
      everyBeat(2 * BEAT_MS, () => (runs.two += 1)),
      everyBeat(4 * BEAT_MS, () => (runs.four += 1)),
    ];
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(8 * BEAT_MS);
    expect(runs).toEqual({ one: 8, two: 4, four: 2 });
    for (const stop of stops) stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps a timer of its own for a period that is not a whole number of beats", () => {
    let runs = 0;
    const stop = everyBeat(5, () => (runs += 1));
    vi.advanceTimersByTime(50);
    expect(runs).toBe(10);
    stop();
    expect(vi.getTimerCount()).toBe(0);
  });
});
