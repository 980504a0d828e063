import * as E from "fp-ts/lib/Either.js";
import { ApiKey, type Identity, type OrchestratorUrl } from "@sdwan-connections/core";
import { describe, expect, it } from "vitest";
import { expectNoKey, make, RESET, SECRET, tagOf, target, type Scripted } from "../test/scripted-portal.js";

const PARTNER: Identity = { kind: "partner", partnerId: 10 };
const json = (status: number, body: unknown): Scripted => ({ status, body: JSON.stringify(body) });
const PRIVILEGE = json(400, { error: { code: -32603, message: "privileges check failed" } });
const NEW_KEY = "new-key-from-the-orchestrator-5d2e";
const jwtPart = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** A partner key that is an orchestrator token (a JWT naming its token `u-1`). */
const tokenTarget = {
  orchestratorUrl: "https://vco.example.net/" as OrchestratorUrl,
  apiKey: ApiKey.unsafeFrom(`${jwtPart({ alg: "HS256" })}.${jwtPart({ tokenUuid: "u-1" })}.c2ln`),
};
const OWN_TOKENS = json(200, [
  { id: 4, tokenUuid: "u-0", createdForEnterpriseUserId: 41 },
  { id: 5, tokenUuid: "u-1", createdForEnterpriseUserId: 42, expiration: "2027-06-11T00:00:00.000Z" },
]);
const reasonOf = (result: E.Either<{ reason: string }, unknown>) => (E.isLeft(result) ? result.left.reason : "");

describe("the portal client's token calls (scripted portal)", () => {
  it("refreshes with the key in the body and holds the answer's token as an ApiKey", async () => {
    const { orchestrator, seen } = make({ refresh: [json(200, { token: NEW_KEY })] });
    const key = await orchestrator.refreshApiToken(target())();
    expect(E.isRight(key) && key.right.reveal()).toBe(NEW_KEY);
    expect(JSON.stringify(key)).not.toContain(NEW_KEY);
    expect(seen.map(({ url, body }) => [url.split("/rest/")[1], body])).toEqual([
      ["enterprise/refreshApiToken", JSON.stringify({ apiToken: SECRET })],
    ]);
  });

  it.each<[string, Scripted]>([
    ["no token", json(200, {})],
    ["a token that is no key (empty)", json(200, { token: "" })],
    ["a token with a control character", json(200, { token: `${NEW_KEY}\u0000` })],
    ["a number", json(200, { token: 7 })],
  ])("a refresh answering %s is garbage naming the field, never the value", async (_, answer) => {
    const { orchestrator } = make({ refresh: [answer] });
    const result = await orchestrator.refreshApiToken(target())();
    expect(tagOf(result)).toBe("OrchestratorGarbage");
    expect(reasonOf(result)).toMatch(/enterprise\/refreshApiToken is not a token \(token\)/);
    expect(reasonOf(result)).not.toContain(NEW_KEY);
    expectNoKey(result);
  });

  it("makes a partner's token for the user its own token was made for, and answers its id", async () => {
    const { orchestrator, seen } = make({ tokens: [OWN_TOKENS], create: [json(200, { id: 9, rows: 1 })] });
    const created = await orchestrator.createApiToken(tokenTarget, PARTNER, { name: "renewed", lifetimeMs: 1000 })();
    expect(created).toEqual(E.right({ id: 9 }));
    expect(seen.map(({ url, body }) => [url.split("/rest/")[1], body])).toEqual([
      ["enterpriseProxy/getApiTokens", '{"enterpriseProxyId":10}'],
      ["enterpriseProxy/createApiToken", '{"enterpriseUserId":42,"name":"renewed","lifetimeMs":1000}'],
    ]);
  });

  it("makes no token for a key its token list does not name, or that names no token", async () => {
    for (const [apiTarget, tokens] of [
      [target(), OWN_TOKENS], // not a JWT
      [tokenTarget, json(200, [{ id: 4, tokenUuid: "u-0", createdForEnterpriseUserId: 41 }])],
      [tokenTarget, json(200, [{ id: 5, tokenUuid: "u-1" }])], // no user
    ] as const) {
      const { orchestrator, methods } = make({ tokens: [tokens], create: [json(200, { id: 9, rows: 1 })] });
      const created = await orchestrator.createApiToken(apiTarget, PARTNER, { name: "x", lifetimeMs: 1 })();
      expect(reasonOf(created)).toMatch(/does not name the user the API key was made for/);
      expect(methods("create")).toHaveLength(0);
    }
  });

  it("calls a create answer without an id garbage", async () => {
    const { orchestrator } = make({ tokens: [OWN_TOKENS], create: [json(200, { rows: 1 })] });
    const created = await orchestrator.createApiToken(tokenTarget, PARTNER, { name: "x", lifetimeMs: 1 })();
    expect(tagOf(created)).toBe("OrchestratorGarbage");
  });

  it.each<["refresh" | "create" | "download", Scripted]>([
    ["refresh", RESET],
    ["refresh", json(500, { error: { code: -32603, message: "x" } })],
    ["create", RESET],
    ["download", { status: 503 }],
  ])("never repeats a %s whose outcome is unknown (%j)", async (check, answer) => {
    const { orchestrator, methods } = make({ tokens: [OWN_TOKENS], [check]: [answer, json(200, { token: NEW_KEY })] });
    const result =
      check === "refresh"
        ? await orchestrator.refreshApiToken(tokenTarget)()
        : check === "create"
          ? await orchestrator.createApiToken(tokenTarget, PARTNER, { name: "x", lifetimeMs: 1 })()
          : await orchestrator.downloadApiToken(tokenTarget, PARTNER, 9)();
    expect(E.isLeft(result)).toBe(true);
    expect(methods(check)).toHaveLength(1);
  });

  it("repeats a refresh after a 429 (answered before acting), and a revoke after a dropped connection", async () => {
    const { orchestrator, methods } = make({
      refresh: [{ status: 429, headers: { "retry-after": "0" } }, json(200, { token: NEW_KEY })],
      revoke: [RESET, json(200, { rows: 1 })],
    });
    expect(E.isRight(await orchestrator.refreshApiToken(target())())).toBe(true);
    expect(await orchestrator.revokeApiToken(target(), PARTNER, 5)()).toEqual(E.right(undefined));
    expect([methods("refresh").length, methods("revoke").length]).toEqual([2, 2]);
  });

  it("says the key lacks the right to renew for the privilege error or a bare 403, and not for another refusal", async () => {
    for (const [answer, lacks] of [
      [PRIVILEGE, true],
      [{ status: 403 }, true],
      [json(400, { error: { code: -32602, message: "API token was already downloaded" } }), false],
    ] as const) {
      const { orchestrator } = make({ download: [answer], refresh: [answer] });
      for (const result of [
        await orchestrator.downloadApiToken(target(), PARTNER, 9)(),
        await orchestrator.refreshApiToken(target())(),
      ]) {
        expect(tagOf(result)).toBe("OrchestratorRejected");
        expect(reasonOf(result).includes("the key lacks the right to renew API keys")).toBe(lacks);
        expectNoKey(result);
      }
    }
  });

  it("refuses the partner calls for a customer's identity without a call", async () => {
    const customer: Identity = { kind: "customer", customerId: 77 };
    const { orchestrator, seen } = make({});
    for (const result of [
      await orchestrator.createApiToken(target(), customer, { name: "x", lifetimeMs: 1 })(),
      await orchestrator.downloadApiToken(target(), customer, 1)(),
      await orchestrator.revokeApiToken(target(), customer, 1)(),
    ])
      expect(tagOf(result)).toBe("OrchestratorRejected");
    expect(seen).toHaveLength(0);
  });
});
