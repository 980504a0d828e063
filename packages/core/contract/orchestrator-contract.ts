import * as E from "fp-ts/lib/Either.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CUSTOMER_FIELDS,
  Customer,
  MAX_API_TOKEN_LIFETIME_MS,
  tokenUuidOf,
  type ApiKey,
  type ApiToken,
  type Identity,
  type Orchestrator,
  type OrchestratorTarget,
} from "../src/index.js";

export interface OrchestratorContractFixture {
  readonly orchestrator: Orchestrator;
  /** A partner key, and the customers the orchestrator holds for it, in its order. */
  readonly partner: OrchestratorTarget;
  readonly partnerCustomers: readonly Customer[];
  /** A customer (enterprise) key. */
  readonly customer: OrchestratorTarget;
  /** A key the orchestrator refuses. */
  readonly refused: OrchestratorTarget;
  /** The API tokens the orchestrator lists to the partner key and to the customer key, in its order. */
  readonly partnerTokens: readonly ApiToken[];
  readonly customerTokens: readonly ApiToken[];
  /** A customer key the orchestrator accepts that may not read the token list. */
  readonly withoutTokenRight: OrchestratorTarget;
  /**
   * Keys for key renewal (docs/interface.md §12), each an orchestrator token (a JWT with its `tokenUuid`) used by no
   * other case, as renewal changes them: a partner's and a customer's that may renew, and a partner's and a
   * customer's that lack the right.
   */
  readonly renewing: { readonly partner: OrchestratorTarget; readonly customer: OrchestratorTarget };
  readonly withoutRenewRight: { readonly partner: OrchestratorTarget; readonly customer: OrchestratorTarget };
}

export interface OrchestratorContractOptions {
  setup(): Promise<OrchestratorContractFixture>;
  teardown?(): Promise<void>;
}

/** The behaviour every Orchestrator adapter must show; run it from the adapter's own tests. */
export const describeOrchestratorContract = (name: string, options: OrchestratorContractOptions): void => {
  describe(`${name} satisfies the Orchestrator contract`, () => {
    let fixture: OrchestratorContractFixture;

    beforeAll(async () => {
      fixture = await options.setup();
    });

    afterAll(async () => {
      await options.teardown?.();
    });

    const identified = async (target: OrchestratorTarget): Promise<Identity> => {
      const identity = await fixture.orchestrator.identify(target)();
      if (E.isLeft(identity)) throw new Error(`key not identified: ${identity.left._tag}`);
      return identity.right;
    };

    it("identifies a partner key with its partner id", async () => {
      const identity = await fixture.orchestrator.identify(fixture.partner)();
      expect(E.isRight(identity) && identity.right.kind).toBe("partner");
      if (E.isRight(identity) && identity.right.kind === "partner")
        expect(Number.isInteger(identity.right.partnerId)).toBe(true);
    });

    it("identifies a customer key", async () => {
      const identity = await fixture.orchestrator.identify(fixture.customer)();
      expect(E.isRight(identity) && identity.right.kind).toBe("customer");
    });

    it("reports a refused key as OrchestratorRejected without echoing it", async () => {
      const identity = await fixture.orchestrator.identify(fixture.refused)();
      expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorRejected");
      expect(JSON.stringify(identity)).not.toContain(fixture.refused.apiKey.reveal());
    });

    it("refuses link-local and cloud-metadata destinations, and admits others", () => {
      const { orchestrator } = fixture;
      const otherSpellings = [
        "http://100.100.100.200/",
        "http://192.0.0.192/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[::a9fe:a9fe]/",
        "http://[2002:a9fe:a9fe::]/",
      ];
      for (const url of [
        "http://169.254.169.254/",
        "http://[fe80::1]:8080/",
        "http://[fd00:ec2::254]/",
        "http://metadata.google.internal/",
        ...otherSpellings,
      ]) {
        expect(E.isLeft(orchestrator.admits(url)), url).toBe(true);
      }
      for (const url of ["https://vco.example.net/", "http://127.0.0.1:8080/", "http://10.1.2.3/vco/"])
        expect(orchestrator.admits(url), url).toEqual(E.right(undefined));
    });

    it("lists a partner's customers with exactly the interface's fields", async () => {
      const identity = await fixture.orchestrator.identify(fixture.partner)();
      if (!(E.isRight(identity) && identity.right.kind === "partner")) throw new Error("partner key not identified");
      const customers = await fixture.orchestrator.listPartnerCustomers(fixture.partner, identity.right.partnerId)();
      if (E.isLeft(customers)) throw new Error(`listing failed: ${JSON.stringify(customers.left)}`);
      const list = customers.right;
      expect(list.items).toEqual(fixture.partnerCustomers);
      expect(list.count).toBe(fixture.partnerCustomers.length);
      // Its JSON is exactly its values', byte for byte, whichever form the adapter made first.
      expect(Buffer.from(list.json).equals(Buffer.from(JSON.stringify(list.items)))).toBe(true);
      for (const customer of list.items) {
        expect(Object.keys(customer).sort()).toEqual([...CUSTOMER_FIELDS].sort());
        expect(Customer.is(customer)).toBe(true);
      }
    });

    it("lists the API tokens of a partner's and a customer's key, each with its uuid and expiry", async () => {
      for (const [target, expected] of [
        [fixture.partner, fixture.partnerTokens],
        [fixture.customer, fixture.customerTokens],
      ] as const) {
        const identity = await identified(target);
        expect(await fixture.orchestrator.listApiTokens(target, identity)()).toEqual(E.right(expected));
      }
    });

    it("refuses the token list to a key without the right as OrchestratorRejected, the key still identified", async () => {
      const identity = await identified(fixture.withoutTokenRight);
      const tokens = await fixture.orchestrator.listApiTokens(fixture.withoutTokenRight, identity)();
      expect(E.isLeft(tokens) && tokens.left._tag).toBe("OrchestratorRejected");
      expect(JSON.stringify(tokens)).not.toContain(fixture.withoutTokenRight.apiKey.reveal());
      expect(await fixture.orchestrator.identify(fixture.withoutTokenRight)()).toEqual(E.right(identity));
    });

    const withKey = (target: OrchestratorTarget, apiKey: ApiKey): OrchestratorTarget => ({ ...target, apiKey });
    const right = <A>(result: E.Either<{ readonly reason: string }, A>): A => {
      if (E.isLeft(result)) throw new Error(result.left.reason);
      return result.right;
    };

    it("refreshes a customer key: a new key of the same customer, which works", async () => {
      const { customer } = fixture.renewing;
      const identity = await identified(customer);
      const key = right(await fixture.orchestrator.refreshApiToken(customer)());
      expect(key.reveal()).not.toBe(customer.apiKey.reveal());
      expect(tokenUuidOf(key)).not.toBe(tokenUuidOf(customer.apiKey));
      expect(await fixture.orchestrator.identify(withKey(customer, key))()).toEqual(E.right(identity));
    });

    it("makes a partner's token, downloads it once, and revokes the old key by its listed id", async () => {
      const { orchestrator } = fixture;
      const { partner } = fixture.renewing;
      const identity = await identified(partner);
      const { id } = right(
        await orchestrator.createApiToken(partner, identity, {
          name: "renewed",
          lifetimeMs: MAX_API_TOKEN_LIFETIME_MS,
        })(),
      );
      const key = right(await orchestrator.downloadApiToken(partner, identity, id)());
      const again = await orchestrator.downloadApiToken(partner, identity, id)();
      expect(E.isLeft(again) && again.left._tag).toBe("OrchestratorRejected");
      const renewed = withKey(partner, key);
      expect(await orchestrator.identify(renewed)()).toEqual(E.right(identity));
      const listed = right(await orchestrator.listApiTokens(renewed, identity)());
      expect(listed.map((token) => token.tokenUuid)).toContain(tokenUuidOf(key));
      const old = listed.find((token) => token.tokenUuid === tokenUuidOf(partner.apiKey));
      if (old === undefined) throw new Error("the old key's token is not listed");
      expect(await orchestrator.revokeApiToken(renewed, identity, old.id)()).toEqual(E.right(undefined));
      const refused = await orchestrator.identify(partner)();
      expect(E.isLeft(refused) && refused.left._tag).toBe("OrchestratorRejected");
      expect(await orchestrator.identify(renewed)()).toEqual(E.right(identity));
      expect(JSON.stringify([again, refused])).not.toContain(key.reveal());
    });

    it("refuses renewal to a key without the right as OrchestratorRejected saying so, the key still valid", async () => {
      const { partner, customer } = fixture.withoutRenewRight;
      const partnerIdentity = await identified(partner);
      for (const [target, result] of [
        [customer, await fixture.orchestrator.refreshApiToken(customer)()],
        [
          partner,
          await fixture.orchestrator.createApiToken(partner, partnerIdentity, { name: "x", lifetimeMs: 1000 })(),
        ],
      ] as const) {
        expect(E.isLeft(result) && result.left._tag).toBe("OrchestratorRejected");
        expect(E.isLeft(result) && result.left.reason).toMatch(/lacks the right to renew/);
        expect(JSON.stringify(result)).not.toContain(target.apiKey.reveal());
        expect(E.isRight(await fixture.orchestrator.identify(target)())).toBe(true);
      }
    });

    it("never mixes up keys when calls run at once", async () => {
      const targets = [fixture.partner, fixture.customer, fixture.refused];
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => fixture.orchestrator.identify(targets[i % 3] as OrchestratorTarget)()),
      );
      const kinds = answers.map((answer) => (E.isRight(answer) ? answer.right.kind : answer.left._tag));
      expect(kinds).toEqual(Array.from({ length: 10 }, () => ["partner", "customer", "OrchestratorRejected"]).flat());
    });
  });
};
