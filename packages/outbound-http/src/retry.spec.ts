import * as O from "fp-ts/lib/Option.js";
import { describe, expect, it } from "vitest";
import { backoffDelay, parseRetryAfter } from "./retry.js";

describe("parseRetryAfter", () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);
  it("reads seconds and HTTP dates, and ignores junk", () => {
    expect(parseRetryAfter("3", now)).toEqual(O.some(3000));
    expect(parseRetryAfter("Wed, 01 Jan 2025 12:00:05 GMT", now)).toEqual(O.some(5000));
    expect(parseRetryAfter("Wed, 01 Jan 2025 11:00:00 GMT", now)).toEqual(O.some(0));
    expect(parseRetryAfter("soon", now)).toEqual(O.none);
    expect(parseRetryAfter(null, now)).toEqual(O.none);
  });
});

describe("backoffDelay", () => {
  it("doubles per retry, keeps half, jitters the other half, and is capped", () => {
    expect(backoffDelay(0, 100, 1000, () => 0)).toBe(50);
    expect(backoffDelay(0, 100, 1000, () => 0.999999)).toBeCloseTo(100);
    expect(backoffDelay(2, 100, 1000, () => 0)).toBe(200);
    expect(backoffDelay(10, 100, 1000, () => 1)).toBe(1000);
  });
});
