import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLoginThrottle } from "./throttle.js";

// rate-limiter-flexible reads Date.now(): the clock is faked, timers are not.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("createLoginThrottle", () => {
  it("blocks a client from its Nth failure until the window opened by its first failure ends", async () => {
    const throttle = createLoginThrottle({ maxFailures: 3, windowMs: 60_000 });
    for (let i = 0; i < 3; i += 1) {
      expect(throttle.retryAfterSeconds("a")).toBeUndefined();
      throttle.recordFailure("a");
      await settle();
      vi.setSystemTime(Date.now() + 1_000);
    }
    expect(throttle.retryAfterSeconds("a")).toBe(57);
    expect(await throttle.blockedSeconds("a")).toBe(57);
    expect(throttle.retryAfterSeconds("b")).toBeUndefined();
    expect(await throttle.blockedSeconds("b")).toBeUndefined();
    vi.setSystemTime(Date.now() + 57_000);
    expect(throttle.retryAfterSeconds("a")).toBeUndefined();
    expect(await throttle.blockedSeconds("a")).toBeUndefined();
  });

  it("learns a block from the shared count (another instance's failures) when asked", async () => {
    const { memoryLimiter } = await import("./throttle.js");
    const shared = memoryLimiter({ maxFailures: 2, windowMs: 60_000 });
    const [here, there] = [createLoginThrottle({ maxFailures: 2, windowMs: 60_000, limiter: shared }), createLoginThrottle({ maxFailures: 2, windowMs: 60_000, limiter: shared })];
    here.recordFailure("a");
    there.recordFailure("a");
    await settle();
    expect(here.retryAfterSeconds("a")).toBeUndefined(); // its own count saw one failure
    expect(await here.blockedSeconds("a")).toBe(60);
    expect(here.retryAfterSeconds("a")).toBe(60); // remembered
  });
});
