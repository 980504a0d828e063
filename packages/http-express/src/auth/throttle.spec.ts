import { createInMemoryFailureCounter, storageFailure, type FailureCounter } from "@sdwan-connections/core";
import * as TE from "fp-ts/lib/TaskEither.js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ADDRESS_LIMIT_FACTOR, createLoginThrottle, type Reservation } from "./throttle.js";

// The counter and the throttle read Date.now(): the clock is faked, timers are not.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

// One user name tried from one address (the throttle's "client"), and another.
const A = { address: "192.0.2.1", user: "ann" };
const B = { address: "192.0.2.2", user: "ann" };

const failed = async (reservation: Reservation): Promise<void> => {
  if (reservation._tag === "Granted") await reservation.failed();
};

describe("createLoginThrottle", () => {
  it("blocks a client from its Nth failure until the window opened by its first failure ends", async () => {
    const throttle = createLoginThrottle({
      maxFailures: 3,
      counter: createInMemoryFailureCounter({ windowMs: 60_000 }),
    });
    for (let i = 0; i < 3; i += 1) {
      expect(throttle.retryAfterSeconds(A.address, A.user)).toBeUndefined();
      const reservation = await throttle.reserve(A);
      expect(reservation._tag).toBe("Granted");
      await failed(reservation);
      vi.setSystemTime(Date.now() + 1_000);
    }
    expect(throttle.retryAfterSeconds(A.address, A.user)).toBe(57);
    expect(await throttle.reserve(A)).toEqual({ _tag: "Refused", retryAfterSeconds: 57 });
    expect(throttle.retryAfterSeconds(B.address, B.user)).toBeUndefined();
    expect((await throttle.reserve(B))._tag).toBe("Granted");
    vi.setSystemTime(Date.now() + 57_000);
    expect(throttle.retryAfterSeconds(A.address, A.user)).toBeUndefined();
    expect((await throttle.reserve(A))._tag).toBe("Granted");
  });

  it("grants exactly maxFailures of a burst of concurrent reservations, however many arrive at once", async () => {
    const throttle = createLoginThrottle({
      maxFailures: 5,
      counter: createInMemoryFailureCounter({ windowMs: 60_000 }),
    });
    const reservations = await Promise.all(Array.from({ length: 200 }, () => throttle.reserve(A)));
    expect(reservations.filter((reservation) => reservation._tag === "Granted")).toHaveLength(5);
  });

  it("takes a successful check's failure back, so it never counts", async () => {
    const throttle = createLoginThrottle({
      maxFailures: 1,
      counter: createInMemoryFailureCounter({ windowMs: 60_000 }),
    });
    for (let i = 0; i < 3; i += 1) {
      const reservation = await throttle.reserve(A);
      if (reservation._tag !== "Granted") throw new Error("refused");
      reservation.giveBack();
    }
    expect((await throttle.reserve(A))._tag).toBe("Granted");
  });

  it("learns a block from the shared count (another instance's failures)", async () => {
    const shared = createInMemoryFailureCounter({ windowMs: 60_000 });
    const [here, there] = [
      createLoginThrottle({ maxFailures: 2, counter: shared }),
      createLoginThrottle({ maxFailures: 2, counter: shared }),
    ];
    await failed(await here.reserve(A));
    await failed(await there.reserve(A));
    expect(here.retryAfterSeconds(A.address, A.user)).toBeUndefined(); // it learns the other's failure only when it asks
    expect(await here.reserve(A)).toEqual({ _tag: "Refused", retryAfterSeconds: 60 });
    expect(here.retryAfterSeconds(A.address, A.user)).toBe(60); // remembered
  });

  it("never blocks a client for a burst of checks that succeed: a refused request gives its point back", async () => {
    const throttle = createLoginThrottle({
      maxFailures: 5,
      counter: createInMemoryFailureCounter({ windowMs: 60_000 }),
    });
    const reservations = await Promise.all(Array.from({ length: 50 }, () => throttle.reserve(A)));
    expect(reservations.filter((reservation) => reservation._tag === "Refused")).toHaveLength(45);
    expect(throttle.retryAfterSeconds(A.address, A.user)).toBeUndefined(); // the five under way may succeed
    for (const reservation of reservations) if (reservation._tag === "Granted") reservation.giveBack();
    expect((await throttle.reserve(A))._tag).toBe("Granted");
  });

  it("blocks for the window once the failures alone reach the limit, whichever check failed last", async () => {
    const throttle = createLoginThrottle({
      maxFailures: 3,
      counter: createInMemoryFailureCounter({ windowMs: 60_000 }),
    });
    const reservations = await Promise.all(Array.from({ length: 3 }, () => throttle.reserve(A)));
    for (const reservation of reservations.reverse()) await failed(reservation);
    expect(throttle.retryAfterSeconds(A.address, A.user)).toBe(60);
  });

  it("stops a guesser on the name it hammers without blocking the other names of its address (issue 27 #6)", async () => {
    const throttle = createLoginThrottle({
      maxFailures: 3,
      counter: createInMemoryFailureCounter({ windowMs: 60_000 }),
    });
    for (let i = 0; i < 10; i += 1) await failed(await throttle.reserve(A));
    expect(throttle.retryAfterSeconds(A.address, A.user)).toBe(60);
    expect(throttle.retryAfterSeconds(A.address, "bob")).toBeUndefined();
    expect(throttle.retryAfterSeconds(A.address, undefined)).toBeUndefined();
    expect((await throttle.reserve({ address: A.address, user: "bob" }))._tag).toBe("Granted");
  });

  it("stops a spray over user names from one address once the address failed maxFailures × ADDRESS_LIMIT_FACTOR times, even concurrently", async () => {
    const throttle = createLoginThrottle({
      maxFailures: 3,
      counter: createInMemoryFailureCounter({ windowMs: 60_000 }),
    });
    const spray = await Promise.all(
      Array.from({ length: 100 }, (_, i) => throttle.reserve({ address: A.address, user: `name-${i}` })),
    );
    const granted = spray.filter((reservation) => reservation._tag === "Granted");
    expect(granted).toHaveLength(3 * ADDRESS_LIMIT_FACTOR);
    for (const reservation of granted) await failed(reservation);
    expect(throttle.retryAfterSeconds(A.address, "anyone")).toBe(60);
    expect(throttle.retryAfterSeconds(A.address, undefined)).toBe(60);
    expect(await throttle.reserve({ address: A.address, user: "name-100" })).toEqual({
      _tag: "Refused",
      retryAfterSeconds: 60,
    });
    expect((await throttle.reserve({ address: B.address, user: "name-100" }))._tag).toBe("Granted");
  });

  it("grants checks of more than maxFailures different names from one address at once (colleagues behind one proxy)", async () => {
    const throttle = createLoginThrottle({
      maxFailures: 10,
      counter: createInMemoryFailureCounter({ windowMs: 60_000 }),
    });
    const colleagues = await Promise.all(
      Array.from({ length: 11 }, (_, i) => throttle.reserve({ address: A.address, user: `colleague-${i}` })),
    );
    expect(colleagues.map((reservation) => reservation._tag)).toEqual(Array.from({ length: 11 }, () => "Granted"));
  });

  it("makes no check while the shared count cannot be kept (issue 27 #7: no count of its own during an outage)", async () => {
    const outage = storageFailure("PostgreSQL cannot be reached (ECONNREFUSED)");
    const down: FailureCounter = {
      add: () => TE.left(outage),
      remove: () => TE.left(outage),
      peek: () => TE.left(outage),
    };
    const throttle = createLoginThrottle({ maxFailures: 3, counter: down });
    expect(await throttle.reserve(A)).toEqual({ _tag: "Unavailable", error: outage });
    expect(throttle.retryAfterSeconds(A.address, A.user)).toBeUndefined();
  });
});
