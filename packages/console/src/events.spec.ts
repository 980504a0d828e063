import { describe, expect, it } from "vitest";
import { retryDelayMs } from "./events.js";

describe("retryDelayMs", () => {
  it("doubles from 0.5 s to at most 10 s, 20 % either side", () => {
    expect([0, 1, 2, 3, 4, 5, 10].map((n) => retryDelayMs(n, () => 0.5))).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000,
    ]);
    expect(retryDelayMs(0, () => 0)).toBeCloseTo(400);
    expect(retryDelayMs(9, () => 1)).toBeCloseTo(12_000);
  });
});
