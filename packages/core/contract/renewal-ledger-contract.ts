import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { ApiKey, type Alias, type RenewalLedger, type RenewalRecord } from "../src/index.js";
import { expectRight as run } from "../testing/run.js";
import { useStoreUnderTest, type StoreUnderTest } from "./store-under-test.js";

export interface RenewalLedgerContractOptions extends StoreUnderTest {
  /** A ledger over the store under test; every ledger it returns shares the same state (as other instances, or a restart, would). */
  make(): Promise<RenewalLedger>;
  /** Everything the store keeps at rest, as text (its files, its rows): where no key may be found in plain text. None for a store that keeps nothing at rest. */
  persisted?(): Promise<string>;
}

const lab = "lab" as Alias;
const at = (seconds: number) => new Date(Date.UTC(2026, 10, 27, 12, 0, seconds));
const NEW_KEY = "renewal-contract-new-key-0123456789";

const aRecord = (overrides: Partial<RenewalRecord> = {}): RenewalRecord => ({
  alias: lab,
  intent: {
    id: "r-1",
    method: "create",
    identity: { kind: "partner", partnerId: 7 },
    fromVersion: 3,
    step: "received",
    startedAt: at(1),
    tokenId: 9001,
    oldTokenId: 42,
    newKey: ApiKey.unsafeFrom(NEW_KEY),
    revokeAt: at(30),
  },
  failures: 2,
  retryAt: at(50),
  ...overrides,
});

/** The behaviour every RenewalLedger adapter must show (SPEC §12); run it from the adapter's own tests. */
export const describeRenewalLedgerContract = (name: string, options: RenewalLedgerContractOptions): void => {
  describe(`${name} satisfies the RenewalLedger contract`, () => {
    useStoreUnderTest(options);

    it("lets exactly one of many concurrent owners take a connection's renewals, in any case of its alias", async () => {
      const ledgers = await Promise.all(Array.from({ length: 3 }, () => options.make()));
      const taken = await Promise.all(
        ledgers.flatMap((ledger, index) => [
          ledger.acquire(lab, `owner-${index}`, at(0), at(60))(),
          ledger.acquire("LAB" as Alias, `other-${index}`, at(0), at(60))(),
        ]),
      );
      expect(taken.filter((one) => E.isRight(one) && one.right !== undefined)).toHaveLength(1);
      expect(await run((ledgers[0] as RenewalLedger).acquire("other" as Alias, "owner-0", at(0), at(60)))).toEqual({
        alias: "other",
        intent: undefined,
        failures: 0,
        retryAt: undefined,
      });
    });

    it("hands the renewals on after a release, or once the lease ended; the owner that lost them saves nothing", async () => {
      const [one, two] = [await options.make(), await options.make()];
      expect(await run(one.acquire(lab, "a", at(0), at(60)))).toBeDefined();
      expect(await run(two.acquire(lab, "b", at(10), at(70)))).toBeUndefined();
      expect(await run(one.acquire(lab, "a", at(10), at(70)))).toBeDefined(); // its own lease, extended
      await run(one.release(lab, "a"));
      expect(await run(two.acquire(lab, "b", at(11), at(20)))).toBeDefined();
      await run(one.release(lab, "a")); // not its lease any more: nothing
      expect(await run(one.acquire(lab, "a", at(19), at(80)))).toBeUndefined();
      expect(await run(one.acquire(lab, "a", at(21), at(80)))).toBeDefined(); // b's lease ended at 20
      expect(await run(two.save(aRecord(), "b"))).toBe(false);
      expect(await run(two.list())).toEqual([]);
    });

    it("keeps a record as saved, the new key included, across ledgers; a record of nothing reads as none", async () => {
      const [one, two] = [await options.make(), await options.make()];
      await run(one.acquire(lab, "a", at(0), at(60)));
      expect(await run(one.save(aRecord(), "a"))).toBe(true);
      const [kept] = await run(two.list());
      expect(kept?.intent?.newKey?.reveal()).toBe(NEW_KEY);
      const { newKey: _key, ...intent } = aRecord().intent ?? ({} as never);
      expect({ ...kept, intent: { ...kept?.intent, newKey: undefined } }).toEqual({
        ...aRecord(),
        intent: { ...intent, newKey: undefined },
      });
      expect(await run(two.acquire(lab, "b", at(1), at(60)))).toBeUndefined();
      const customer = aRecord({
        intent: {
          id: "r-2",
          method: "refresh",
          identity: { kind: "customer", customerId: 5 },
          fromVersion: 1,
          step: "started",
          startedAt: at(2),
        },
        failures: 0,
        retryAt: undefined,
      });
      expect(await run(one.save(customer, "a"))).toBe(true);
      expect(await run(two.list())).toEqual([customer]);
      expect(await run(one.save(aRecord({ intent: undefined, failures: 0, retryAt: undefined }), "a"))).toBe(true);
      expect(await run(two.list())).toEqual([]);
      expect((await run(two.acquire(lab, "a", at(3), at(60))))?.intent).toBeUndefined();
    });

    it("never keeps a new key in plain text at rest", async () => {
      const ledger = await options.make();
      await run(ledger.acquire(lab, "a", at(0), at(60)));
      await run(ledger.save(aRecord(), "a"));
      const persisted = (await options.persisted?.()) ?? "";
      for (const form of [NEW_KEY, Buffer.from(NEW_KEY).toString("base64"), Buffer.from(NEW_KEY).toString("hex")])
        expect(persisted).not.toContain(form);
      if (options.persisted !== undefined) expect(persisted).toContain("r-1"); // the intent itself is there
    });
  });
};
