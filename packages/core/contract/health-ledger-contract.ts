import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { HEALTH_HISTORY, type Alias, type HealthCheck, type HealthLedger } from "../src/index.js";
import { expectRight as run } from "../testing/run.js";
import { useStoreUnderTest, type StoreUnderTest } from "./store-under-test.js";

export interface HealthLedgerContractOptions extends StoreUnderTest {
  /** A ledger over the store under test; every ledger it returns shares the same state (as other instances would). */
  make(): Promise<HealthLedger>;
}

const alias = (value: string) => value as Alias;
const aCheck = (outcome: HealthCheck["outcome"], secondsAgo = 0): HealthCheck => ({
  at: new Date(Math.floor(Date.now() / 1000) * 1000 - secondsAgo * 1000),
  outcome,
  latencyMs: 12,
  reason: outcome === "valid" ? null : `because ${outcome}`,
});

/** The behaviour every HealthLedger adapter must show; run it from the adapter's own tests. */
export const describeHealthLedgerContract = (name: string, options: HealthLedgerContractOptions): void => {
  describe(`${name} satisfies the HealthLedger contract`, () => {
    useStoreUnderTest(options);

    it("lets exactly one of many concurrent claims of a connection's interval win, in any case of its alias", async () => {
      const ledgers = await Promise.all(Array.from({ length: 3 }, () => options.make()));
      const claims = await Promise.all(
        ledgers.flatMap((ledger) => [ledger.claim(alias("lab"), 100)(), ledger.claim(alias("LAB"), 100)()]),
      );
      expect(claims.filter((claim) => E.isRight(claim) && claim.right)).toHaveLength(1);
      expect(await run((ledgers[0] as HealthLedger).claim(alias("lab"), 99))).toBe(false);
      expect(await run((ledgers[1] as HealthLedger).claim(alias("lab"), 101))).toBe(true);
      expect(await run((ledgers[2] as HealthLedger).claim(alias("other"), 100))).toBe(true);
    });

    it("lets exactly one of many concurrent claims of a key-expiry warning win, once per key mark and threshold, and again after a forget", async () => {
      const ledgers = await Promise.all(Array.from({ length: 3 }, () => options.make()));
      const claims = await Promise.all(
        ledgers.flatMap((ledger) => [
          ledger.claimKeyWarning(alias("lab"), "k1", 30)(),
          ledger.claimKeyWarning(alias("LAB"), "k1", 30)(),
        ]),
      );
      expect(claims.filter((claim) => E.isRight(claim) && claim.right)).toHaveLength(1);
      const [one, two] = ledgers as [HealthLedger, HealthLedger, HealthLedger];
      expect(await run(one.claimKeyWarning(alias("lab"), "k1", 7))).toBe(true);
      expect(await run(two.claimKeyWarning(alias("lab"), "k1", 7))).toBe(false);
      expect(await run(two.claimKeyWarning(alias("other"), "k1", 7))).toBe(true);
      // A new key starts again, and the old key's claims are gone.
      expect(await run(two.claimKeyWarning(alias("lab"), "k2", 30))).toBe(true);
      expect(await run(one.claimKeyWarning(alias("lab"), "k2", 30))).toBe(false);
      await run(one.forget(alias("Lab")));
      expect(await run(two.claimKeyWarning(alias("lab"), "k2", 30))).toBe(true);
    });

    it("keeps the key-expiry warnings claimed for a ledger opened again (a restart)", async () => {
      const before = await options.make();
      expect(await run(before.claimKeyWarning(alias("lab"), "k1", 1))).toBe(true);
      const after = await options.make();
      expect(await run(after.claimKeyWarning(alias("lab"), "k1", 1))).toBe(false);
    });

    it("records checks newest first, keeps the newest few, and tells the state before each", async () => {
      const [one, two] = [await options.make(), await options.make()];
      expect(await run(one.record(alias("Lab"), aCheck("valid", 30)))).toBe("unknown");
      expect(await run(two.record(alias("lab"), aCheck("valid", 20)))).toBe("valid");
      const broken = aCheck("unreachable", 10);
      expect(await run(one.record(alias("LAB"), broken))).toBe("valid");
      const [health] = await run(two.list());
      expect(health).toMatchObject({ alias: "Lab", state: "unreachable", since: broken.at });
      expect(health?.checks.map((check) => check.outcome)).toEqual(["unreachable", "valid", "valid"]);
      expect(health?.checks[0]).toEqual(broken);
      for (let i = 0; i < HEALTH_HISTORY + 3; i += 1)
        await run(one.record(alias("lab"), aCheck("unreachable", 9 - i / 100)));
      const [kept] = await run(one.list());
      expect(kept?.checks).toHaveLength(HEALTH_HISTORY);
      expect(kept?.since).toEqual(broken.at);
    });

    it("forgets a connection's health and claims in any case of its alias, so the alias starts unknown again", async () => {
      const [one, two] = [await options.make(), await options.make()];
      await run(one.record(alias("Lab"), aCheck("invalid", 20)));
      await run(one.record(alias("kept"), aCheck("valid", 20)));
      expect(await run(one.claim(alias("lab"), 100))).toBe(true);
      await run(two.forget(alias("LAB")));
      expect((await run(one.list())).map((health) => health.alias)).toEqual(["kept"]);
      expect(await run(one.claim(alias("lab"), 100))).toBe(true);
      expect(await run(two.record(alias("lab"), aCheck("valid", 10)))).toBe("unknown");
      expect(await run(one.list())).toContainEqual(
        expect.objectContaining({
          alias: "lab",
          state: "valid",
          checks: [expect.objectContaining({ outcome: "valid" })],
        }),
      );
      await run(one.forget(alias("never-checked")));
    });
  });
};
