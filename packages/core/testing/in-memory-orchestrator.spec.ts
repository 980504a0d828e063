import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import {
  ApiKey,
  MAX_API_TOKEN_LIFETIME_MS,
  tokenExpiryOf,
  type Identity,
  type OrchestratorTarget,
  type OrchestratorUrl,
} from "../src/index.js";
import { aJwt } from "./builders.js";
import { createInMemoryOrchestrator } from "./in-memory-orchestrator.js";

const NOW = 1_800_000_000_000;
const at = (apiKey: string): OrchestratorTarget => ({
  orchestratorUrl: "http://127.0.0.1:1/" as OrchestratorUrl,
  apiKey: ApiKey.unsafeFrom(apiKey),
});
const customer: Identity = { kind: "customer", customerId: 5 };
const partner: Identity = { kind: "partner", partnerId: 6 };
const accounts = [
  { apiKey: "customer", identity: customer, apiTokens: [] },
  { apiKey: aJwt({ tokenUuid: "p" }), identity: partner, apiTokens: [{ id: 1, tokenUuid: "p", expiresAt: undefined }] },
];

// What the contract suite does not hold the fake to: its counts, its record of tokens, its clock and switch.
describe("the in-memory orchestrator's key renewal", () => {
  it.each([false, true])(
    "refreshes with refreshRevokesPredecessor %s, the new key's exp 12 months from now",
    async (revokes) => {
      const orchestrator = createInMemoryOrchestrator(accounts, { now: () => NOW, refreshRevokesPredecessor: revokes });
      const key = await orchestrator.refreshApiToken(at("customer"))();
      if (E.isLeft(key)) throw new Error(key.left.reason);
      expect(tokenExpiryOf(key.right)?.getTime()).toBe(NOW + MAX_API_TOKEN_LIFETIME_MS);
      expect(E.isRight(await orchestrator.identify(at("customer"))())).toBe(!revokes);
      expect(orchestrator.renewalCalls).toEqual({
        refreshApiToken: 1,
        createApiToken: 0,
        downloadApiToken: 0,
        revokeApiToken: 0,
      });
      expect(orchestrator.issued).toMatchObject([{ state: "downloaded", identity: customer, key: key.right.reveal() }]);
    },
  );

  it("records each made token's state, refuses a lifetime over 12 months, and lists made tokens to their owner", async () => {
    const orchestrator = createInMemoryOrchestrator(accounts, { now: () => NOW });
    const key = at(accounts[1]?.apiKey as string);
    const over = await orchestrator.createApiToken(key, partner, {
      name: "x",
      lifetimeMs: MAX_API_TOKEN_LIFETIME_MS + 1,
    })();
    expect(E.isLeft(over) && over.left._tag).toBe("OrchestratorRejected");
    const created = await orchestrator.createApiToken(key, partner, { name: "x", lifetimeMs: 1000 })();
    if (E.isLeft(created)) throw new Error(created.left.reason);
    expect(orchestrator.issued.map((token) => token.state)).toEqual(["created"]);
    await orchestrator.downloadApiToken(key, partner, created.right.id)();
    await orchestrator.revokeApiToken(key, partner, created.right.id)();
    expect(orchestrator.issued.map((token) => token.state)).toEqual(["revoked"]);
    const listed = await orchestrator.listApiTokens(key, partner)();
    expect(E.isRight(listed) && listed.right.map((token) => token.id)).toEqual([1]);
    expect(orchestrator.renewalCalls).toEqual({
      refreshApiToken: 0,
      createApiToken: 2,
      downloadApiToken: 1,
      revokeApiToken: 1,
    });
  });
});
