import type { Agent } from "node:http";
import type { LookupFunction } from "node:net";
import * as E from "fp-ts/lib/Either.js";
import { ApiKey, type OrchestratorUrl } from "@sdwan-connections/core";
import { describe, expect, it } from "vitest";
import { createPortalOrchestrator } from "./index.js";
import {
  ENTERPRISE,
  ERROR_400,
  expectNoKey,
  HTML,
  make,
  PROXY,
  RESET,
  SECRET,
  scriptedFetch,
  type Scripted,
  tagOf,
  target,
  TOKEN_ERROR,
} from "../test/scripted-portal.js";

describe("createPortalOrchestrator", () => {
  it("posts {} with Content-Type and Authorization: Token to the joined URL", async () => {
    const { orchestrator, seen } = make({ partner: [PROXY], customer: [TOKEN_ERROR] });
    const identity = await orchestrator.identify(target("https://vco.example.net/vco"))();
    expect(identity).toEqual(E.right({ kind: "partner", partnerId: 10 }));
    expect(seen[0]).toEqual({
      url: "https://vco.example.net/vco/portal/rest/enterpriseProxy/getEnterpriseProxyProperty",
      headers: { "content-type": "application/json", accept: "application/json", authorization: `Token ${SECRET}` },
      body: "{}",
    });
    expect(seen.map((s) => s.url.split("/rest/")[1]).sort()).toEqual([
      "enterprise/getEnterprise",
      "enterpriseProxy/getEnterpriseProxyProperty",
    ]);
  });

  it("prefers the partner when both checks accept the key", async () => {
    const { orchestrator } = make({ partner: [PROXY], customer: [ENTERPRISE] });
    expect(await orchestrator.identify(target())()).toEqual(E.right({ kind: "partner", partnerId: 10 }));
  });

  // Every answer of the partner check that is not a proxy id only means "not a partner" (issue 9, docs/interface.md §4).
  it.each<[string, Scripted]>([
    ["400 with an error body", ERROR_400],
    ["500 with an error body", { status: 500, body: '{"error":{"code":-32603,"message":"x"}}' }],
    ["403 without a body", { status: 403 }],
    ["403 with an error body", { status: 403, body: '{"error":{"code":-32000,"message":"Insufficient Permissions"}}' }],
    ["401 without a body", { status: 401 }],
    ["500 without a body", { status: 500 }],
    ["200 with an error member", { status: 200, body: '{"error":{"code":-32603,"message":"x"}}' }],
    ["200 without enterpriseProxyId", { status: 200, body: '{"id":1,"name":"x"}' }],
    ["HTML", HTML(200)],
    ["an HTML 502 from a proxy", HTML(502)],
    ["a redirect to a login page", { status: 302, headers: { location: "/login.html" }, body: "<html>login</html>" }],
    ["a 404", { status: 404, body: "not found" }],
    ["not JSON", { status: 200, body: "{" }],
    ["a 429 whose wait does not fit", { status: 429, headers: { "retry-after": "60" } }],
    ["a dropped connection", RESET],
  ])("partner check answering %s: a customer key is still a customer", async (_, answer) => {
    const { orchestrator } = make({ partner: [answer], customer: [ENTERPRISE] });
    const identity = await orchestrator.identify(target())();
    expect(identity).toEqual(E.right({ kind: "customer", customerId: 77 }));
  });

  it("a key accepted as neither is rejected with both reasons, never echoing the orchestrator's message", async () => {
    const { orchestrator } = make({
      partner: [{ status: 400, body: JSON.stringify({ error: { code: -32603, message: `bad token ${SECRET}` } }) }],
      customer: [
        { status: 403, body: JSON.stringify({ error: { code: -32000, message: `token ${SECRET} expired` } }) },
      ],
    });
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toEqual({
      _tag: "OrchestratorRejected",
      reason:
        "The orchestrator accepts the API key neither as a partner's (getEnterpriseProxyProperty: HTTP 400, error code -32603) " +
        "nor as a customer's (getEnterprise: HTTP 403, error code -32000).",
    });
    expectNoKey(identity);
  });

  it.each([401, 403])("rejects on HTTP %s from both checks, never retrying", async (status) => {
    const { orchestrator, seen, events } = make({ partner: [{ status }], customer: [{ status }] });
    const identity = await orchestrator.identify(target())();
    expect(tagOf(identity)).toBe("OrchestratorRejected");
    expect(seen).toHaveLength(2);
    expect(events.map((e) => [e.outcome, e.attempts])).toEqual([
      ["refused", 1],
      ["refused", 1],
    ]);
    expectNoKey(identity);
  });

  it("is the customer check's outcome, naming both checks, when only the partner check got the orchestrator's answer", async () => {
    const { orchestrator } = make({ partner: [TOKEN_ERROR], customer: [HTML(502)] }, { retries: 0 });
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toEqual({
      _tag: "OrchestratorUnreachable",
      reason:
        "Could not connect to the orchestrator for enterprise/getEnterprise, so it is not known whether the API key is a customer's; " +
        "the partner check (getEnterpriseProxyProperty: HTTP 400, error code -32000) did not accept it as a partner's.",
    });
  });

  // A partner key is always refused by the customer check: when the partner check got no answer, that is the outcome (issue 21).
  it.each<[string, Scripted, string, string]>([
    [
      "timed out",
      { ...PROXY, delayMs: 10_000 },
      "OrchestratorTimedOut",
      "The orchestrator did not answer enterpriseProxy/getEnterpriseProxyProperty within the 300 ms deadline",
    ],
    [
      "could not connect",
      RESET,
      "OrchestratorUnreachable",
      "Could not connect to the orchestrator for enterpriseProxy/getEnterpriseProxyProperty",
    ],
    [
      "failed",
      { status: 500, body: '{"error":{"code":-32603,"message":"x"}}' },
      "OrchestratorFailed",
      "The orchestrator failed to answer enterpriseProxy/getEnterpriseProxyProperty (HTTP 500, error code -32603)",
    ],
  ])(
    "is the partner check's outcome when it %s and the customer check refused the key",
    async (_, partner, tag, words) => {
      const { orchestrator } = make({ partner: [partner], customer: [TOKEN_ERROR] }, { timeoutMs: 300 });
      const identity = await orchestrator.identify(target())();
      expect(tagOf(identity)).toBe(tag);
      expect(E.isLeft(identity) && identity.left.reason).toContain(words);
      expect(E.isLeft(identity) && identity.left.reason).toContain(
        "so it is not known whether the API key is a partner's; the customer check (getEnterprise: HTTP 400, error code -32000) refused it, as it refuses every partner's key.",
      );
    },
  );

  it("calls a customer check that succeeds without an id garbage", async () => {
    const { orchestrator } = make({ partner: [ERROR_400], customer: [{ status: 200, body: '{"name":"x"}' }] });
    expect(tagOf(await orchestrator.identify(target())())).toBe("OrchestratorGarbage");
  });

  it("is unreachable when neither check got an answer, in the same words however many attempts were made (the count is logged)", async () => {
    const { orchestrator, events } = make({ partner: [RESET], customer: [RESET] });
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toEqual({
      _tag: "OrchestratorUnreachable",
      reason: "Could not connect to the orchestrator for enterprise/getEnterprise.",
    });
    expect(events.map((e) => e.attempts)).toEqual([3, 3]);
  });

  it("retries 5xx without an error body with backoff, then reports the orchestrator unreachable", async () => {
    const { orchestrator, events } = make({ partner: [HTML(502)], customer: [HTML(503)] }, { retries: 2 });
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toEqual({
      _tag: "OrchestratorUnreachable",
      reason: "Could not connect to the orchestrator for enterprise/getEnterprise.",
    });
    expect(events.map((e) => e.attempts)).toEqual([3, 3]);
    // What was met goes to the log only (the two checks end together, padded to the same time: in either order).
    expect(events.map((e) => e.detail).sort()).toEqual([
      "HTTP 502 without the orchestrator's error body",
      "HTTP 503 without the orchestrator's error body",
    ]);
  });

  it("retries a 5xx that carries the orchestrator's error body: the orchestrator failed, it did not refuse the key", async () => {
    const { orchestrator, methods } = make({
      partner: [{ status: 500, body: '{"error":{"code":-32603,"message":"x"}}' }, PROXY],
      customer: [TOKEN_ERROR],
    });
    expect(await orchestrator.identify(target())()).toEqual(E.right({ kind: "partner", partnerId: 10 }));
    expect(methods("partner")).toHaveLength(2);
  });

  it("reports a 5xx with the error body that persists as the orchestrator failing, never as a refusal", async () => {
    const failing = { status: 503, body: '{"error":{"code":-32603,"message":"Error parsing or processing request"}}' };
    const { orchestrator, events } = make({ list: [failing] });
    const customers = await orchestrator.listPartnerCustomers(target(), 10)();
    expect(E.isLeft(customers) && customers.left).toEqual({
      _tag: "OrchestratorFailed",
      reason:
        "The orchestrator failed to answer enterpriseProxy/getEnterpriseProxyEnterprises (HTTP 503, error code -32603); it is the orchestrator's own error, not a refusal of the key.",
    });
    expect(events.map((e) => [e.outcome, e.attempts, e.detail])).toEqual([
      ["OrchestratorFailed", 3, "HTTP 503 with the orchestrator's error body"],
    ]);
  });

  it("retries a 5xx with the error body only while the wait and one more attempt fit the deadline", async () => {
    const { orchestrator, methods } = make(
      { list: [{ status: 500, body: '{"error":{"code":-32603,"message":"x"}}', headers: { "retry-after": "1" } }] },
      { timeoutMs: 500 },
    );
    expect(tagOf(await orchestrator.listPartnerCustomers(target(), 10)())).toBe("OrchestratorFailed");
    expect(methods("list")).toHaveLength(1);
  });

  it("succeeds when a retry does", async () => {
    const { orchestrator, methods } = make({
      partner: [{ status: 503 }, { status: 429, headers: { "retry-after": "0" } }, PROXY],
      customer: [TOKEN_ERROR],
    });
    expect(await orchestrator.identify(target())()).toEqual(E.right({ kind: "partner", partnerId: 10 }));
    expect(methods("partner")).toHaveLength(3);
  });

  it("reports rate limiting after the retries run out", async () => {
    const { orchestrator, methods } = make(
      { partner: [ERROR_400], customer: [{ status: 429, headers: { "retry-after": "0" } }] },
      { retries: 1 },
    );
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toMatchObject({
      _tag: "OrchestratorRateLimited",
      retryAfterSeconds: 0,
    });
    expect(methods("customer")).toHaveLength(2);
  });

  it("shares a deadline between calls: a listing after a slow identification gets only what is left", async () => {
    const { orchestrator } = make(
      {
        partner: [{ ...PROXY, delayMs: 200 }],
        customer: [TOKEN_ERROR],
        list: [{ status: 200, body: "[]", delayMs: 200 }],
      },
      { timeoutMs: 300 },
    );
    const deadline = orchestrator.startDeadline();
    expect(await orchestrator.identify(target(), deadline)()).toEqual(E.right({ kind: "partner", partnerId: 10 }));
    expect(tagOf(await orchestrator.listPartnerCustomers(target(), 10, deadline)())).toBe("OrchestratorTimedOut");
    expect(E.isRight(await orchestrator.listPartnerCustomers(target(), 10)())).toBe(true);
  });

  it("retries a dropped connection but not an unknown host", async () => {
    const reset = make({ partner: [RESET], customer: [RESET] });
    expect(tagOf(await reset.orchestrator.identify(target())())).toBe("OrchestratorUnreachable");
    expect(reset.methods("customer")).toHaveLength(3);
    const notFound = {
      status: 0,
      throws: Object.assign(new Error(`getaddrinfo ENOTFOUND ${SECRET}`), { code: "ENOTFOUND" }),
    };
    const dns = make({ partner: [notFound], customer: [notFound] });
    const second = await dns.orchestrator.identify(target())();
    expect(E.isLeft(second) && second.left).toEqual({
      _tag: "OrchestratorUnreachable",
      reason: "Could not connect to the orchestrator for enterprise/getEnterprise.",
    });
    expect(dns.seen).toHaveLength(2);
    expectNoKey(second);
  });

  it("names an untrusted TLS certificate and how to trust a private CA", async () => {
    const untrusted = {
      status: 0,
      throws: Object.assign(new Error("self-signed certificate in certificate chain"), {
        code: "SELF_SIGNED_CERT_IN_CHAIN",
      }),
    };
    const { orchestrator } = make({ partner: [untrusted], customer: [untrusted] });
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toEqual({
      _tag: "OrchestratorUnreachable",
      reason:
        "The orchestrator's TLS certificate is not trusted (SELF_SIGNED_CERT_IN_CHAIN) for enterprise/getEnterprise; if a private CA issued it, add that CA (SDWAN_ORCHESTRATOR_CA_FILE).",
    });
  });

  it("calls an answer over the size limit garbage", async () => {
    const { orchestrator } = make({
      list: [{ status: 0, throws: Object.assign(new Error("content size over limit"), { type: "max-size" }) }],
    });
    const customers = await orchestrator.listPartnerCustomers(target(), 10)();
    expect(tagOf(customers)).toBe("OrchestratorGarbage");
  });

  it("lists with the partner id, and calls a 200 with an error member garbage but an error body at 4xx a refusal", async () => {
    const ok = make({ list: [{ status: 200, body: '[{"id":1,"logicalId":"a"}]' }] });
    const customers = await ok.orchestrator.listPartnerCustomers(target(), 10)();
    expect(E.isRight(customers) && customers.right.items).toHaveLength(1);
    expect(ok.seen[0]?.body).toBe('{"enterpriseProxyId":10}');
    const contradictory = make({ list: [{ status: 200, body: '{"error":{"code":-32603,"message":"x"}}' }] });
    expect(tagOf(await contradictory.orchestrator.listPartnerCustomers(target(), 10)())).toBe("OrchestratorGarbage");
    expect(tagOf(await make({ list: [ERROR_400] }).orchestrator.listPartnerCustomers(target(), 10)())).toBe(
      "OrchestratorRejected",
    );
    const refused403 = make({
      list: [{ status: 403, body: '{"error":{"code":-32000,"message":"Insufficient Permissions"}}' }],
    });
    expect(tagOf(await refused403.orchestrator.listPartnerCustomers(target(), 10)())).toBe("OrchestratorRejected");
    expect(refused403.seen).toHaveLength(1);
  });

  it.each<[string, Scripted]>([
    ["a malformed error body", { status: 400, body: '{"error":"nope"}' }],
    ["a 400 without error body", { status: 400, body: "{}" }],
    [
      "a 404 with the orchestrator's error body",
      { status: 404, body: '{"error":{"code":-32601,"message":"Method not found"}}' },
    ],
  ])("calls a listing answered with %s garbage (or its refusal)", async (_, step) => {
    const { orchestrator, seen } = make({ list: [step] });
    const customers = await orchestrator.listPartnerCustomers(target(), 10)();
    expect(tagOf(customers)).toBe(step.status === 404 ? "OrchestratorRejected" : "OrchestratorGarbage");
    expect(seen).toHaveLength(1);
    expectNoKey(customers);
  });

  it.each<[string, Scripted, string]>([
    ["not JSON", { status: 200, body: "<html>" }, "HTTP 200, not JSON"],
    [
      "a redirect",
      { status: 302, headers: { location: "https://elsewhere.example/" } },
      "HTTP 302 redirect, not followed",
    ],
    ["a 404 page", { status: 404, body: "not found" }, "HTTP 404: no such method; check the orchestrator URL"],
  ])(
    "answers a listing answered with %s (not the orchestrator's API) with the one reason 'could not connect'",
    async (_, step, detail) => {
      const { orchestrator, seen, events } = make({ list: [step] });
      const customers = await orchestrator.listPartnerCustomers(target(), 10)();
      expect(E.isLeft(customers) && customers.left).toEqual({
        _tag: "OrchestratorUnreachable",
        reason: "Could not connect to the orchestrator for enterpriseProxy/getEnterpriseProxyEnterprises.",
      });
      expect(events.map((event) => event.detail)).toEqual([detail]);
      expect(seen).toHaveLength(1);
    },
  );

  it("reads the token list of a partner (enterpriseProxy/getApiTokens) or a customer (enterprise/getApiTokens) with its id, as an array or the Swagger's one object", async () => {
    const token = {
      id: 1,
      tokenUuid: "9c1b",
      expiration: "2027-06-11T00:00:00.000Z",
      state: "ENABLED",
      isRevoked: false,
    };
    const { orchestrator, seen } = make({
      tokens: [
        { status: 200, body: JSON.stringify([token, { id: 2, tokenUuid: "4e2a", expiration: "never" }]) },
        { status: 200, body: JSON.stringify(token) },
      ],
    });
    expect(await orchestrator.listApiTokens(target(), { kind: "partner", partnerId: 10 })()).toEqual(
      E.right([
        { id: 1, tokenUuid: "9c1b", expiresAt: new Date("2027-06-11T00:00:00.000Z") },
        { id: 2, tokenUuid: "4e2a", expiresAt: undefined },
      ]),
    );
    expect(await orchestrator.listApiTokens(target(), { kind: "customer", customerId: 342 })()).toEqual(
      E.right([{ id: 1, tokenUuid: "9c1b", expiresAt: new Date("2027-06-11T00:00:00.000Z") }]),
    );
    expect(seen.map(({ url, body }) => [url.split("/rest/")[1], body])).toEqual([
      ["enterpriseProxy/getApiTokens", '{"enterpriseProxyId":10}'],
      ["enterprise/getApiTokens", '{"enterpriseId":342}'],
    ]);
  });

  it.each<[string, Scripted, string]>([
    ["the privilege error (400 with an error body)", ERROR_400, "OrchestratorRejected"],
    ["a bare 403", { status: 403 }, "OrchestratorRejected"],
    [
      "a 200 with an error member",
      { status: 200, body: '{"error":{"code":-32603,"message":"x"}}' },
      "OrchestratorGarbage",
    ],
    ["tokens without a uuid", { status: 200, body: '[{"id":1}]' }, "OrchestratorGarbage"],
    ["HTML", HTML(200), "OrchestratorUnreachable"],
  ])("answers a token list refused or broken: %s", async (_, answer, tag) => {
    const { orchestrator } = make({ tokens: [answer] });
    const tokens = await orchestrator.listApiTokens(target(), { kind: "customer", customerId: 342 })();
    expect(tagOf(tokens)).toBe(tag);
    expectNoKey(tokens);
  });

  it("answers a listing cut short (an array that is not JSON) as any answer that is not JSON: could not connect, with the detail", async () => {
    const { orchestrator, events } = make({ list: [{ status: 200, body: '[{"id": 1, "logicalId": "' }] });
    const customers = await orchestrator.listPartnerCustomers(target(), 10)();
    expect(E.isLeft(customers) && customers.left).toEqual({
      _tag: "OrchestratorUnreachable",
      reason: "Could not connect to the orchestrator for enterpriseProxy/getEnterpriseProxyEnterprises.",
    });
    expect(events.map(({ outcome, detail }) => [outcome, detail])).toEqual([
      ["OrchestratorUnreachable", "HTTP 200, not JSON"],
    ]);
  });

  it("refuses link-local and metadata destinations, at admission and at connect time, unless the allowlist names them", async () => {
    const fenced = createPortalOrchestrator({ allowedHosts: undefined });
    expect(fenced.admits("http://169.254.169.254/latest/")).toEqual(
      E.left(
        expect.stringMatching(/^is a link-local address .*: refused unless SDWAN_ORCHESTRATOR_ALLOWED_HOSTS names it$/),
      ),
    );
    expect(fenced.admits("http://metadata.google.internal/")).toEqual(
      E.left(expect.stringContaining("cloud metadata")),
    );
    expect(fenced.admits("https://vco.example.net/")).toEqual(E.right(undefined));
    const refused = await fenced.identify({
      orchestratorUrl: "http://169.254.169.254/" as OrchestratorUrl,
      apiKey: ApiKey.unsafeFrom("k"),
    })();
    expect(E.isLeft(refused) && refused.left.reason).toBe(
      "Could not connect to the orchestrator for enterprise/getEnterprise.",
    );
    // "localhost" resolves to loopback: admitted; a name resolving to a link-local address is refused after the lookup.
    const allowed = createPortalOrchestrator({ allowedHosts: ["169.254.169.254"] });
    expect(allowed.admits("http://169.254.169.254/")).toEqual(E.right(undefined));
    fenced.close();
    allowed.close();
  });

  it("hands node-fetch agents that fence a name once resolved (an address resolves to itself, without DNS)", async () => {
    const agents: Agent[] = [];
    const capturing = createPortalOrchestrator({
      retries: 0,
      fetch: (url, init) => Promise.reject(new Error(String(agents.push(init.agent(new URL(url)))))),
    });
    await capturing.identify(target("https://vco.example.net/"))();
    const { lookup } = (agents[0] as unknown as { options: { lookup: LookupFunction } }).options;
    expect(await new Promise((resolve) => lookup("169.254.169.254", { all: true }, resolve))).toMatchObject({
      code: "EFENCED",
    });
    capturing.close();
  });

  describe("host and scheme rules", () => {
    it("refuses a host outside the allowlist without any network call", async () => {
      const { orchestrator, seen } = make(
        { partner: [PROXY], customer: [TOKEN_ERROR] },
        { allowedHosts: ["vco.example.net"] },
      );
      const refused = await orchestrator.identify(target("https://other.example.net/"))();
      expect(E.isLeft(refused) && refused.left).toEqual({
        _tag: "OrchestratorRejected",
        reason: "The orchestrator host is not in SDWAN_ORCHESTRATOR_ALLOWED_HOSTS.",
      });
      expect(seen).toHaveLength(0);
      expect(E.isRight(await orchestrator.identify(target("https://VCO.EXAMPLE.NET:8443/"))())).toBe(true);
    });

    it("reads no environment: without an allowlist in its options, any host is allowed", async () => {
      process.env["SDWAN_ORCHESTRATOR_ALLOWED_HOSTS"] = "vco.example.net";
      try {
        const { fetch, seen } = scriptedFetch({ partner: [PROXY], customer: [TOKEN_ERROR] });
        const orchestrator = createPortalOrchestrator({ fetch });
        expect(E.isRight(await orchestrator.identify(target("https://other.example.net/"))())).toBe(true);
        expect(seen).toHaveLength(2);
      } finally {
        delete process.env["SDWAN_ORCHESTRATOR_ALLOWED_HOSTS"];
      }
    });

    it("speaks only http and https", async () => {
      const { orchestrator, seen } = make({ partner: [PROXY] });
      const refused = await orchestrator.identify(target("ftp://vco.example.net/"))();
      expect(E.isLeft(refused) && refused.left._tag).toBe("OrchestratorRejected");
      expect(seen).toHaveLength(0);
    });
  });
});
