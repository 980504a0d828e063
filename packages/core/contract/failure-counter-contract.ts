import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import type { FailureCounter } from "../src/index.js";
import { expectRight as run } from "../testing/run.js";
import { useStoreUnderTest, type StoreUnderTest } from "./store-under-test.js";

export interface FailureCounterContractOptions extends StoreUnderTest {
  /** A counter over the store under test, with a window of `windowMs`; every counter it returns shares the same counts (as other instances would). */
  make(windowMs: number): Promise<FailureCounter>;
  /**
   * Takes the shared count away from `counter` alone (its database connections cut, say) while `meanwhile` runs,
   * then gives it back. Absent for a counter whose count is never out of reach (one process's memory).
   */
  interrupt?(counter: FailureCounter, meanwhile: () => Promise<void>): Promise<void>;
}

const WINDOW_MS = 60_000;

/** The behaviour every FailureCounter adapter must show; run it from the adapter's own tests. */
export const describeFailureCounterContract = (name: string, options: FailureCounterContractOptions): void => {
  describe(`${name} satisfies the FailureCounter contract`, () => {
    useStoreUnderTest(options);

    it("counts each client's failures apart, in a window opened by the first", async () => {
      const counter = await options.make(WINDOW_MS);
      expect(await run(counter.peek("a"))).toEqual({ count: 0, msLeft: 0 });
      const first = await run(counter.add("a"));
      expect(first.count).toBe(1);
      expect(first.msLeft).toBeGreaterThan(WINDOW_MS - 5_000);
      expect(first.msLeft).toBeLessThanOrEqual(WINDOW_MS);
      expect((await run(counter.add("a"))).count).toBe(2);
      expect((await run(counter.peek("a"))).count).toBe(2);
      expect((await run(counter.peek("b"))).count).toBe(0);
    });

    it("gives every one of many concurrent adds, from several instances, its own count", async () => {
      const counters = await Promise.all([options.make(WINDOW_MS), options.make(WINDOW_MS)]);
      const counts = await Promise.all(
        Array.from({ length: 200 }, (_, i) => run((counters[i % 2] as FailureCounter).add("burst"))),
      );
      expect(counts.map((answer) => answer.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 200 }, (_, i) => i + 1),
      );
    });

    it("takes back one failure with remove", async () => {
      const [one, two] = [await options.make(WINDOW_MS), await options.make(WINDOW_MS)];
      await run(one.add("a"));
      await run(one.add("a"));
      await run(two.remove("a"));
      expect((await run(one.peek("a"))).count).toBe(1);
    });

    it("starts a new window once the old one ended", async () => {
      const counter = await options.make(1_000);
      await run(counter.add("a"));
      await run(counter.add("a"));
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await run(counter.peek("a"))).count).toBe(0);
      expect((await run(counter.add("a"))).count).toBe(1);
    });

    const { interrupt } = options;
    // Only a count that can be out of reach has this case: one process's memory always answers.
    if (interrupt !== undefined) {
      it("fails rather than counting where other instances cannot see, while the shared count is out of reach", async () => {
        const [cut, other] = [await options.make(WINDOW_MS), await options.make(WINDOW_MS)];
        await run(cut.add("a"));
        await interrupt(cut, async () => {
          for (let i = 0; i < 3; i += 1) expect(E.isLeft(await cut.add("a")())).toBe(true);
          expect((await run(other.add("a"))).count).toBe(2);
        });
        expect((await run(cut.add("a"))).count).toBe(3);
      });
    }
  });
};
