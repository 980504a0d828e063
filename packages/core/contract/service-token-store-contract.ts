import { describe, expect, it } from "vitest";
import type { ServiceToken, ServiceTokenStore } from "../src/index.js";
import { expectRight as run } from "../testing/run.js";
import { useStoreUnderTest, type StoreUnderTest } from "./store-under-test.js";

export interface ServiceTokenStoreContractOptions extends StoreUnderTest {
  /** A token store over the store under test; every one it returns shares the same tokens (as other instances, or a restart, would). */
  make(): Promise<ServiceTokenStore>;
  /**
   * What the store persisted, as text (its file, its rows), to check that it keeps hashes only, and forgets them.
   * A store that persists nothing outside its process (the in-memory one) has none: those checks are skipped.
   */
  peek?(): Promise<string>;
}

const DAY = 24 * 60 * 60 * 1000;
const created = new Date("2026-01-01T00:00:00.000Z");
const at = (days: number) => new Date(created.getTime() + days * DAY);
let ids = 0;
const aToken = (fields: Partial<ServiceToken> = {}): ServiceToken => ({
  id: `00000000-0000-4000-8000-${String((ids += 1)).padStart(12, "0")}`,
  name: "ci",
  role: "viewer",
  lifetimeDays: 30,
  expiresAt: at(30),
  lastUsedAt: null,
  createdBy: "admin",
  createdAt: created,
  ...fields,
});

/** The behaviour every ServiceTokenStore adapter must show; run it from the adapter's own tests. */
export const describeServiceTokenStoreContract = (name: string, options: ServiceTokenStoreContractOptions): void => {
  describe(`${name} satisfies the ServiceTokenStore contract`, () => {
    useStoreUnderTest(options);

    it("creates tokens with unique names, lists them oldest first on every instance, and finds one by its hash until it expires", async () => {
      const [one, two] = [await options.make(), await options.make()];
      const ci = aToken({ name: "ci", role: "admin" });
      const poller = aToken({ name: "poller", createdAt: at(1), expiresAt: at(2), lifetimeDays: 1 });
      expect(await run(one.create(ci, "hash-ci"))).toBe(true);
      expect(await run(two.create(poller, "hash-poller"))).toBe(true);
      expect(await run(two.create(aToken({ name: "ci" }), "hash-other"))).toBe(false);
      expect(await run(one.list())).toEqual([ci, poller]);
      expect(await run(two.find("hash-ci", at(29)))).toEqual(ci);
      expect(await run(one.find("hash-poller", at(1.5)))).toEqual(poller);
      expect(await run(one.find("hash-poller", at(2)))).toBeUndefined();
      expect(await run(one.find("hash-other", at(0)))).toBeUndefined();
      expect(await run(one.find("hash-ci", at(30)))).toBeUndefined();
    });

    it("renews a token: the new secret works until the new expiry, the one before it only until its overlap ends, an earlier one no more", async () => {
      const [one, two] = [await options.make(), await options.make()];
      const token = aToken();
      await run(one.create(token, "first"));
      const renewed = await run(one.renew(token.id, { hash: "second", expiresAt: at(40), previousUntil: at(11) }));
      expect(renewed).toEqual({ ...token, expiresAt: at(40) });
      expect(await run(two.find("second", at(39)))).toEqual(renewed);
      expect(await run(two.find("first", at(10.9)))).toEqual(renewed);
      expect(await run(two.find("first", at(11)))).toBeUndefined();
      await run(two.renew(token.id, { hash: "third", expiresAt: at(50), previousUntil: at(12) }));
      expect(await run(one.find("first", at(10)))).toBeUndefined();
      expect(await run(one.find("second", at(11.5)))).toMatchObject({ id: token.id, expiresAt: at(50) });
      expect(await run(one.find("third", at(49)))).toMatchObject({ id: token.id });
      expect(
        await run(
          one.renew("00000000-0000-4000-8000-ffffffffffff", { hash: "x", expiresAt: at(1), previousUntil: at(1) }),
        ),
      ).toBeUndefined();
    });

    it("revokes a token with both its secrets on every instance, and says when there was none", async () => {
      const [one, two] = [await options.make(), await options.make()];
      const token = aToken();
      const kept = aToken({ name: "kept" });
      await run(one.create(token, "first"));
      await run(one.create(kept, "kept"));
      await run(one.renew(token.id, { hash: "second", expiresAt: at(40), previousUntil: at(11) }));
      expect(await run(two.revoke(token.id))).toBe(true);
      expect(await run(one.find("first", at(1)))).toBeUndefined();
      expect(await run(one.find("second", at(1)))).toBeUndefined();
      expect(await run(one.list())).toEqual([kept]);
      expect(await run(two.revoke(token.id))).toBe(false);
      // A revoked token's name is free again.
      expect(await run(two.create(aToken(), "again"))).toBe(true);
    });

    // The store is given hashes only (the caller hashes each secret); what it persists must forget them with the token.
    it.runIf(options.peek !== undefined)(
      "persists the working secrets' hashes only: a renewal's earlier one and a revoked token's are gone from it",
      async () => {
        const peek = async () => (await options.peek?.()) ?? "";
        const store = await options.make();
        const token = aToken();
        await run(store.create(token, "hash-first"));
        await run(store.renew(token.id, { hash: "hash-second", expiresAt: at(40), previousUntil: at(11) }));
        expect(await peek()).toContain("hash-first");
        await run(store.renew(token.id, { hash: "hash-third", expiresAt: at(50), previousUntil: at(41) }));
        const renewed = await peek();
        expect(renewed).toContain("hash-second");
        expect(renewed).toContain("hash-third");
        expect(renewed).not.toContain("hash-first");
        await run(store.revoke(token.id));
        for (const hash of ["hash-second", "hash-third"]) expect(await peek()).not.toContain(hash);
      },
    );

    it("keeps a token without a role (one that may do only what its grants give)", async () => {
      const [one, two] = [await options.make(), await options.make()];
      const token = aToken({ role: null });
      await run(one.create(token, "granted"));
      expect(await run(two.find("granted", at(1)))).toEqual(token);
      expect(await run(two.list())).toEqual([token]);
    });

    it("records the last use on every instance, and ignores an unknown token", async () => {
      const [one, two] = [await options.make(), await options.make()];
      const token = aToken();
      await run(one.create(token, "first"));
      await run(two.touch(token.id, at(3)));
      await run(two.touch("00000000-0000-4000-8000-ffffffffffff", at(3)));
      expect(await run(one.list())).toEqual([{ ...token, lastUsedAt: at(3) }]);
      expect(await run(one.find("first", at(4)))).toEqual({ ...token, lastUsedAt: at(3) });
    });
  });
};
