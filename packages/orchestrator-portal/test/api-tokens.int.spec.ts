import { inspect } from "node:util";
import * as E from "fp-ts/lib/Either.js";
import { MAX_API_TOKEN_LIFETIME_MS, tokenExpiryOf, tokenUuidOf, type Identity } from "@sdwan-connections/core";
import {
  loadSampleDataset,
  startOrchestratorSimulator,
  withJwtKeys,
  type Dataset,
  type OrchestratorSimulator,
} from "@sdwan-connections/orchestrator-simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPortalOrchestrator, type PortalCallEvent, type PortalOrchestrator } from "../src/index.js";
import { SAMPLE_CUSTOMER_KEY, SAMPLE_PARTNER_KEY, targetFor } from "./helpers.js";

const PARTNER: Identity = { kind: "partner", partnerId: 10 };
const CUSTOMER: Identity = { kind: "customer", customerId: 1000 };
const DAY = 86_400_000;

/** The sample with its keys as orchestrators hand them out (JWTs with their token's uuid); `renews: false` for `unprivileged`. */
const sampleWithJwtKeys = async (unprivileged: readonly string[] = []) => {
  const sample = await loadSampleDataset();
  const data: Dataset = {
    ...sample,
    apiTokens: (sample.apiTokens ?? []).map((token) =>
      unprivileged.includes(token.key) ? { ...token, renews: false } : token,
    ),
  };
  return withJwtKeys(data);
};

describe("the portal client's token calls against the simulator (SPEC §12), over real HTTP", () => {
  let simulator: OrchestratorSimulator;
  let orchestrator: PortalOrchestrator;
  let partnerKey: string;
  let customerKey: string;
  const events: PortalCallEvent[] = [];

  beforeAll(async () => {
    const { data, keyOf } = await sampleWithJwtKeys();
    partnerKey = keyOf(SAMPLE_PARTNER_KEY);
    customerKey = keyOf(SAMPLE_CUSTOMER_KEY);
    simulator = await startOrchestratorSimulator({ data });
    orchestrator = createPortalOrchestrator({
      timeoutMs: 5_000,
      allowedHosts: undefined,
      onCall: (event) => void events.push(event),
    });
  });
  afterAll(async () => {
    orchestrator.close();
    await simulator.stop();
  });

  it("lists each token with its id, the one to revoke", async () => {
    const tokens = await orchestrator.listApiTokens(targetFor(simulator.url, partnerKey), PARTNER)();
    const own = simulator.tokenOf(partnerKey);
    expect(tokens).toEqual(E.right([{ id: own?.id, tokenUuid: own?.tokenUuid, expiresAt: own?.expiration }]));
  });

  it("refreshes a customer key: the new key is a JWT of a new token, valid for 12 months, and works; the old one too", async () => {
    const target = targetFor(simulator.url, customerKey);
    const before = Date.now();
    const refreshed = await orchestrator.refreshApiToken(target)();
    if (E.isLeft(refreshed)) throw new Error(refreshed.left.reason);
    const key = refreshed.right;
    expect(JSON.stringify(refreshed)).not.toContain(key.reveal());
    const token = simulator.tokenOf(key.reveal());
    expect(token).toMatchObject({ refreshedFrom: simulator.tokenOf(customerKey)?.id, state: "downloaded" });
    expect(tokenUuidOf(key)).toBe(token?.tokenUuid);
    expect(tokenExpiryOf(key)?.getTime()).toBeGreaterThanOrEqual(
      Math.floor((before + MAX_API_TOKEN_LIFETIME_MS) / 1000) * 1000,
    );
    expect(await orchestrator.identify(targetFor(simulator.url, key.reveal()))()).toEqual(E.right(CUSTOMER));
    expect(await orchestrator.identify(target)()).toEqual(E.right(CUSTOMER));
    // The key went in the body the API asks for, to its own orchestrator only.
    const sent = simulator.requests.filter((request) => request.url.endsWith("enterprise/refreshApiToken"));
    expect(sent.map((request) => JSON.parse(request.body) as unknown)).toEqual([{ apiToken: customerKey }]);
  });

  it("makes a partner's token for the key's own user, downloads it once, and revokes the old key", async () => {
    const target = targetFor(simulator.url, partnerKey);
    const created = await orchestrator.createApiToken(target, PARTNER, {
      name: "renewed by sdwan-connections",
      lifetimeMs: MAX_API_TOKEN_LIFETIME_MS,
    })();
    if (E.isLeft(created)) throw new Error(created.left.reason);
    const { id } = created.right;
    expect(simulator.tokens().find((token) => token.id === id)).toMatchObject({
      state: "created",
      name: "renewed by sdwan-connections",
      createdForEnterpriseUserId: simulator.tokenOf(partnerKey)?.createdForEnterpriseUserId,
    });

    const downloaded = await orchestrator.downloadApiToken(target, PARTNER, id)();
    if (E.isLeft(downloaded)) throw new Error(downloaded.left.reason);
    const key = downloaded.right.reveal();
    expect(simulator.tokenOf(key)?.id).toBe(id);
    const again = await orchestrator.downloadApiToken(target, PARTNER, id)();
    expect(E.isLeft(again) && again.left).toEqual({
      _tag: "OrchestratorRejected",
      reason: `The orchestrator refused to download API token ${id} (a token is downloaded once) (HTTP 400, error code -32602).`,
    });
    expect(simulator.calls.byMethod["enterpriseProxy/downloadApiToken"]).toBe(2);

    const newTarget = targetFor(simulator.url, key);
    const oldId = simulator.tokenOf(partnerKey)?.id as number;
    expect(await orchestrator.revokeApiToken(newTarget, PARTNER, oldId)()).toEqual(E.right(undefined));
    expect(await orchestrator.revokeApiToken(newTarget, PARTNER, oldId)()).toEqual(E.right(undefined));
    const refused = await orchestrator.identify(target)();
    expect(E.isLeft(refused) && refused.left._tag).toBe("OrchestratorRejected");
    expect(await orchestrator.identify(newTarget)()).toEqual(E.right(PARTNER));
    expect(JSON.stringify(events)).not.toContain(key);
    for (const result of [created, downloaded, again, refused]) {
      expect(JSON.stringify(result)).not.toContain(key);
      expect(inspect(result, { depth: 10 })).not.toContain(key);
    }
  });

  it("refuses partner token calls for a customer's identity without calling", async () => {
    const before = simulator.calls.total;
    const target = targetFor(simulator.url, customerKey);
    for (const result of [
      await orchestrator.createApiToken(target, CUSTOMER, { name: "x", lifetimeMs: DAY })(),
      await orchestrator.downloadApiToken(target, CUSTOMER, 1)(),
      await orchestrator.revokeApiToken(target, CUSTOMER, 1)(),
    ])
      expect(E.isLeft(result) && result.left._tag).toBe("OrchestratorRejected");
    expect(simulator.calls.total).toBe(before);
  });

  it("never repeats a call that makes or hands out a token when its outcome is unknown; retries it after a 429", async () => {
    const { data, keyOf } = await sampleWithJwtKeys();
    await using sim = await startOrchestratorSimulator({ data });
    const key = keyOf("sample-customer-key-2-1");
    sim.setFault(key, { kind: "serverError", method: "enterprise/refreshApiToken" });
    const failed = await orchestrator.refreshApiToken(targetFor(sim.url, key))();
    expect(E.isLeft(failed) && failed.left._tag).toBe("OrchestratorFailed");
    expect(sim.calls.byMethod["enterprise/refreshApiToken"]).toBe(1);
    sim.setFault(key, { kind: "rateLimit", retryAfter: "0", times: 1, method: "enterprise/refreshApiToken" });
    expect(E.isRight(await orchestrator.refreshApiToken(targetFor(sim.url, key))())).toBe(true);
    expect(sim.calls.byMethod["enterprise/refreshApiToken"]).toBe(3);
  });
});

describe("no key in any answer of a token call, under every simulator fault", () => {
  it("holds for refresh, create, download and revoke, the new key included", async () => {
    const { data, keyOf } = await sampleWithJwtKeys();
    await using simulator = await startOrchestratorSimulator({ data });
    const orchestrator = createPortalOrchestrator({
      timeoutMs: 1_500,
      retries: 1,
      backoffBaseMs: 5,
      allowedHosts: undefined,
    });
    const partner = targetFor(simulator.url, keyOf(SAMPLE_PARTNER_KEY));
    const customer = targetFor(simulator.url, keyOf(SAMPLE_CUSTOMER_KEY));
    const results: unknown[] = [];
    for (const fault of [
      { kind: "serverError" },
      { kind: "rateLimit", retryAfter: "0" },
      { kind: "malformedJson" },
      { kind: "errorBody" },
      { kind: "bareStatus", status: 403 },
      { kind: "missingId" },
      { kind: "html", status: 502 },
      { kind: "redirectToLogin" },
      { kind: "reset" },
    ] as const) {
      simulator.setFault("*", fault);
      results.push(
        await orchestrator.refreshApiToken(customer)(),
        await orchestrator.createApiToken(partner, PARTNER, { name: "x", lifetimeMs: DAY })(),
        await orchestrator.downloadApiToken(partner, PARTNER, 1)(),
        await orchestrator.revokeApiToken(partner, PARTNER, 999)(),
      );
    }
    simulator.setFault("*", undefined);
    orchestrator.close();
    expect(results.every((result) => E.isLeft(result as E.Either<unknown, unknown>))).toBe(true);
    const keys = [partner, customer].map((target) => target.apiKey.reveal());
    for (const key of [...keys, ...simulator.tokens().flatMap((token) => token.key ?? [])]) {
      expect(JSON.stringify(results)).not.toContain(key);
      expect(inspect(results, { depth: 10 })).not.toContain(key);
    }
  });
});

describe("a key without the right to renew (the privilege error), against the simulator", () => {
  it("answers OrchestratorRejected saying the key lacks the right, for each call, and never the key", async () => {
    const { data, keyOf } = await sampleWithJwtKeys([SAMPLE_PARTNER_KEY, SAMPLE_CUSTOMER_KEY]);
    await using simulator = await startOrchestratorSimulator({ data });
    const orchestrator = createPortalOrchestrator({ timeoutMs: 5_000, allowedHosts: undefined });
    const partner = targetFor(simulator.url, keyOf(SAMPLE_PARTNER_KEY));
    const customer = targetFor(simulator.url, keyOf(SAMPLE_CUSTOMER_KEY));
    const results = [
      [await orchestrator.refreshApiToken(customer)(), "UPDATE ENTERPRISE_TOKEN"],
      [await orchestrator.createApiToken(partner, PARTNER, { name: "x", lifetimeMs: DAY })(), "CREATE PROXY_TOKEN"],
      [await orchestrator.downloadApiToken(partner, PARTNER, 1)(), "READ PROXY_TOKEN"],
      [await orchestrator.revokeApiToken(partner, PARTNER, 1)(), "UPDATE PROXY_TOKEN"],
      // A partner's key refreshing as a customer's: the same error (it has PROXY_TOKEN, not ENTERPRISE_TOKEN).
      [
        await orchestrator.refreshApiToken(targetFor(simulator.url, keyOf("sample-partner-key-2")))(),
        "ENTERPRISE_TOKEN",
      ],
    ] as const;
    orchestrator.close();
    for (const [result, privilege] of results) {
      expect(E.isLeft(result) && result.left._tag).toBe("OrchestratorRejected");
      const reason = E.isLeft(result) ? result.left.reason : "";
      expect(reason).toContain("the key lacks the right to renew API keys");
      expect(reason).toContain(privilege);
      for (const key of [partner, customer].map((target) => target.apiKey.reveal()))
        expect(JSON.stringify(result)).not.toContain(key);
    }
    expect(simulator.tokens().every((token) => token.state === "downloaded")).toBe(true);
  });
});
