import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { EVERY_CONNECTION, type Alias, type ConnectionChangeNotice, type ConnectionChanges } from "../src/index.js";

// Another instance hears a change when the store delivers it: waited for, never timed (a loaded machine can be slow).
const DELIVERY = { timeout: 5_000 };

export interface ConnectionChangesContractOptions {
  /** Changes over the store under test; all it returns share one channel, as the instances of the service over one store do (in one process the same object will do). */
  make(): Promise<ConnectionChanges>;
  /**
   * For an implementation that can miss notifications: takes `changes` off the channel (e.g. kills its
   * LISTEN connection), runs `meanwhile` while it is off, lets it back, and resolves once it listens again.
   */
  interrupt?(changes: ConnectionChanges, meanwhile: () => Promise<void>): Promise<void>;
  /** Releases what `make` opened, after the suite. */
  close?(): Promise<void>;
}

const alias = (value: string) => value as Alias;

/** The behaviour every ConnectionChanges adapter must show; run it from the adapter's own tests. */
export const describeConnectionChangesContract = (name: string, options: ConnectionChangesContractOptions): void => {
  describe(`${name} satisfies the ConnectionChanges contract`, () => {
    const unsubscribers: (() => void)[] = [];
    /** What `changes` delivers to a new subscriber from now on. */
    const heardBy = (changes: ConnectionChanges): ConnectionChangeNotice[] => {
      const heard: ConnectionChangeNotice[] = [];
      unsubscribers.push(changes.subscribe((notice) => heard.push(notice)));
      return heard;
    };

    afterEach(() => {
      unsubscribers.splice(0).forEach((unsubscribe) => unsubscribe());
    });

    afterAll(async () => {
      await options.close?.();
    });

    it("tells the publisher's own subscribers before publish resolves, once, with the alias as published", async () => {
      const [a, b] = [await options.make(), await options.make()];
      const heard = heardBy(a);
      await a.publish(alias("Lab.One"));
      expect(heard).toEqual(["Lab.One"]);
      // A marker from the other instance arrives after any echo of ours would have: there must be none.
      await b.publish(alias("marker"));
      await vi.waitFor(() => expect(heard).toContain("marker"), DELIVERY);
      expect(heard).toEqual(["Lab.One", "marker"]);
    });

    it("reaches the subscribers of every instance, keeping the alias's case, and never says EVERY_CONNECTION while nothing was missed", async () => {
      const [a, b] = [await options.make(), await options.make()];
      const [first, second] = [heardBy(b), heardBy(b)];
      await a.publish(alias("Mixed-Case_Lab"));
      await a.publish(alias("lab"));
      await vi.waitFor(() => expect(first).toEqual(["Mixed-Case_Lab", "lab"]), DELIVERY);
      await vi.waitFor(() => expect(second).toEqual(["Mixed-Case_Lab", "lab"]), DELIVERY);
    });

    it("stops delivering to a listener once unsubscribed, and goes on delivering to the others", async () => {
      const [a, b] = [await options.make(), await options.make()];
      const kept = heardBy(b);
      const stopped: ConnectionChangeNotice[] = [];
      const unsubscribe = b.subscribe((notice) => stopped.push(notice));
      await a.publish(alias("before"));
      await vi.waitFor(() => expect(stopped).toEqual(["before"]), DELIVERY);
      unsubscribe();
      unsubscribe(); // twice is harmless
      await a.publish(alias("after"));
      await b.publish(alias("after-local"));
      // (No order is promised between two instances' changes.)
      await vi.waitFor(() => expect(kept.map(String).sort()).toEqual(["after", "after-local", "before"]), DELIVERY);
      expect(stopped).toEqual(["before"]);
    });

    const { interrupt } = options;
    if (interrupt !== undefined) {
      it("after missing notifications, tells its subscribers EVERY_CONNECTION by the time it listens again, then goes on delivering", async () => {
        const [a, b] = [await options.make(), await options.make()];
        const heard = heardBy(b);
        await interrupt(b, () => a.publish(alias("missed")));
        expect(heard).toContain(EVERY_CONNECTION);
        await a.publish(alias("after"));
        await vi.waitFor(() => expect(heard).toContain("after"), DELIVERY);
        expect(heard.indexOf(EVERY_CONNECTION)).toBeLessThan(heard.indexOf("after"));
      });
    }
  });
};
