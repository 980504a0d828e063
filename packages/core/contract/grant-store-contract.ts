import { describe, expect, it, vi } from "vitest";
import type { AliasPattern, Grant, GrantStore, GrantVerb, Subject } from "../src/index.js";
import { expectRight as run } from "../testing/run.js";
import { useStoreUnderTest, type StoreUnderTest } from "./store-under-test.js";

export interface GrantStoreContractOptions extends StoreUnderTest {
  /** A grant store over the store under test; every one it returns shares the same grants (as other instances would). */
  make(): Promise<GrantStore>;
}

let ids = 0;
const aGrant = (subject: string, verb: GrantVerb, pattern: string): Grant => ({
  id: `00000000-0000-4000-9000-${String((ids += 1)).padStart(12, "0")}`,
  subject: subject as Subject,
  pattern: pattern as AliasPattern,
  verb,
});

/** The behaviour every GrantStore adapter must show; run it from the adapter's own tests. */
export const describeGrantStoreContract = (name: string, options: GrantStoreContractOptions): void => {
  describe(`${name} satisfies the GrantStore contract`, () => {
    useStoreUnderTest(options);

    it("adds grants, lists them oldest first on every instance, and refuses one saying the same (the pattern in any case)", async () => {
      const [one, two] = [await options.make(), await options.make()];
      const read = aGrant("group:emea", "read", "emea-*");
      const manage = aGrant("user:alice", "manage", "Lab-*");
      expect(await run(one.add(read))).toBe(true);
      expect(await run(two.add(manage))).toBe(true);
      expect(await run(two.add(aGrant("group:emea", "read", "EMEA-*")))).toBe(false);
      // Another verb, or another subject, is another grant.
      const use = aGrant("group:emea", "use", "emea-*");
      expect(await run(one.add(use))).toBe(true);
      expect(await run(one.list())).toEqual([read, manage, use]);
      expect(await run(two.list())).toEqual([read, manage, use]);
    });

    it("removes a grant on every instance, answering it, and says when there was none", async () => {
      const [one, two] = [await options.make(), await options.make()];
      const gone = aGrant("token:ci", "use", "*");
      const kept = aGrant("oidc:bob", "read", "lab");
      await run(one.add(gone));
      await run(one.add(kept));
      expect(await run(two.remove(gone.id))).toEqual(gone);
      expect(await run(one.list())).toEqual([kept]);
      expect(await run(one.remove(gone.id))).toBeUndefined();
      // What it said may be granted again.
      expect(await run(two.add(aGrant("token:ci", "use", "*")))).toBe(true);
    });

    it("tells its own subscribers of a change before the change answers, and another instance's within a second", async () => {
      const [one, two] = [await options.make(), await options.make()];
      let heardHere = 0;
      let heardThere = 0;
      const stopHere = one.subscribe(() => (heardHere += 1));
      const stopThere = two.subscribe(() => (heardThere += 1));
      const grant = aGrant("user:carol", "read", "*");
      await run(one.add(grant));
      expect(heardHere).toBeGreaterThan(0);
      await vi.waitFor(() => expect(heardThere).toBeGreaterThan(0), { timeout: 1_000, interval: 10 });
      const before = heardThere;
      await run(one.remove(grant.id));
      await vi.waitFor(() => expect(heardThere).toBeGreaterThan(before), { timeout: 1_000, interval: 10 });
      stopThere();
      stopHere();
      const after = heardHere;
      await run(one.add(aGrant("user:carol", "use", "*")));
      expect(heardHere).toBe(after);
    });
  });
};
