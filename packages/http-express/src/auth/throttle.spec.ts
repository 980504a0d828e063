import { createInMemoryFailureCounter } from "@sdwan-connections/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLoginThrottle, type Reservation } from "./throttle.js";

// The counter and the throttle read Date.now(): the clock is faked, timers are not.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

const failed = async (reservation: Reservation): Promise<void> => {
  if (reservation._tag === "Granted") await reservation.failed();
};

describe("createLoginThrottle", () => {
  it("blocks a client from its Nth failure until the window opened by its first failure ends", async () => {
    const throttle = createLoginThrottle({ maxFailures: 3, counter: createInMemoryFailureCounter({ windowMs: 60_000 }) });
    for (let i = 0; i < 3; i += 1) {
      expect(throttle.retryAfterSeconds("a")).toBeUndefined();
      const reservation = await throttle.reserve("a");
      expect(reservation._tag).toBe("Granted");
      await failed(reservation);
      vi.setSystemTime(Date.now() + 1_000);
    }
    expect(throttle.retryAfterSeconds("a")).toBe(57);
    expect(await throttle.reserve("a")).toEqual({ _tag: "Refused", retryAfterSeconds: 57 });
    expect(throttle.retryAfterSeconds("b")).toBeUndefined();
    expect((await throttle.reserve("b"))._tag).toBe("Granted");
    vi.setSystemTime(Date.now() + 57_000);
    expect(throttle.retryAfterSeconds("a")).toBeUndefined();
    expect((await throttle.reserve("a"))._tag).toBe("Granted");
  });

  it("grants exactly maxFailures of a burst of concurrent reservations, however many arrive at once", async () => {
    const throttle = createLoginThrottle({ maxFailures: 5, counter: createInMemoryFailureCounter({ windowMs: 60_000 }) });
    const reservations = await Promise.all(Array.from({ length: 200 }, () => throttle.reserve("a")));
    expect(reservations.filter((reservation) => reservation._tag === "Granted")).toHaveLength(5);
  });

  it("takes a successful check's failure back, so it never counts", async () => {
    const throttle = createLoginThrottle({ maxFailures: 1, counter: createInMemoryFailureCounter({ windowMs: 60_000 }) });
    for (let i = 0; i < 3; i += 1) {
      const reservation = await throttle.reserve("a");
      if (reservation._tag !== "Granted") throw new Error("refused");
      reservation.giveBack();
    }
    expect((await throttle.reserve("a"))._tag).toBe("Granted");
  });

  it("learns a block from the shared count (another instance's failures)", async () => {
    const shared = createInMemoryFailureCounter({ windowMs: 60_000 });
    const [here, there] = [createLoginThrottle({ maxFailures: 2, counter: shared }), createLoginThrottle({ maxFailures: 2, counter: shared })];
    await failed(await here.reserve("a"));
    await failed(await there.reserve("a"));
    expect(here.retryAfterSeconds("a")).toBeUndefined(); // it learns the other's failure only when it asks
    expect(await here.reserve("a")).toEqual({ _tag: "Refused", retryAfterSeconds: 60 });
    expect(here.retryAfterSeconds("a")).toBe(60); // remembered
  });

  it("never blocks a client for a burst of checks that succeed: a refused request gives its point back", async () => {
    const throttle = createLoginThrottle({ maxFailures: 5, counter: createInMemoryFailureCounter({ windowMs: 60_000 }) });
    const reservations = await Promise.all(Array.from({ length: 50 }, () => throttle.reserve("a")));
    expect(reservations.filter((reservation) => reservation._tag === "Refused")).toHaveLength(45);
    expect(throttle.retryAfterSeconds("a")).toBeUndefined(); // the five under way may succeed
    for (const reservation of reservations) if (reservation._tag === "Granted") reservation.giveBack();
    expect((await throttle.reserve("a"))._tag).toBe("Granted");
  });

  it("blocks for the window once the failures alone reach the limit, whichever check failed last", async () => {
    const throttle = createLoginThrottle({ maxFailures: 3, counter: createInMemoryFailureCounter({ windowMs: 60_000 }) });
    const reservations = await Promise.all(Array.from({ length: 3 }, () => throttle.reserve("a")));
    for (const reservation of reservations.reverse()) await failed(reservation);
    expect(throttle.retryAfterSeconds("a")).toBe(60);
  });
});
