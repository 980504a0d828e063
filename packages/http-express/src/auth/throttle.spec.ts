import { createManualClock } from "@sdwan-connections/core/testing";
import { describe, expect, it } from "vitest";
import { createLoginThrottle } from "./throttle.js";

describe("createLoginThrottle", () => {
  it("blocks a client from its Nth failure until the window opened by its first failure ends", () => {
    const clock = createManualClock();
    const throttle = createLoginThrottle({ maxFailures: 3, windowMs: 60_000, clock });
    for (let i = 0; i < 3; i += 1) {
      expect(throttle.retryAfterSeconds("a")).toBeUndefined();
      throttle.recordFailure("a");
      clock.advance(1_000);
    }
    expect(throttle.retryAfterSeconds("a")).toBe(57);
    expect(throttle.retryAfterSeconds("b")).toBeUndefined();
    clock.advance(57_000);
    expect(throttle.retryAfterSeconds("a")).toBeUndefined();
  });

  it("keeps at most maxClients windows", () => {
    const clock = createManualClock();
    const throttle = createLoginThrottle({ maxFailures: 1, windowMs: 60_000, clock, maxClients: 2 });
    for (const client of ["a", "b", "c"]) throttle.recordFailure(client);
    expect(throttle.retryAfterSeconds("a")).toBeUndefined();
    expect(throttle.retryAfterSeconds("c")).toBe(60);
  });
});
