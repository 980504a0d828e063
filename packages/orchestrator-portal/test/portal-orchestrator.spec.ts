import { inspect } from "node:util";
import * as E from "fp-ts/lib/Either.js";
import { ApiKey, type OrchestratorTarget, type OrchestratorUrl } from "@sdwan-connections/core";
import { describe, expect, it } from "vitest";
import { createPortalOrchestrator, type FetchLike, type PortalCallEvent, type PortalOrchestratorOptions } from "../src/index.js";

const SECRET = "unit-secret-key-7f3a9c";
const target = (orchestratorUrl = "https://vco.example.net/"): OrchestratorTarget => ({
  orchestratorUrl: orchestratorUrl as OrchestratorUrl,
  apiKey: ApiKey.unsafeFrom(SECRET),
});

interface Scripted {
  readonly status: number;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  readonly throws?: unknown;
}

/** A fetch answering from a script, recording what it was asked. */
const scriptedFetch = (script: readonly Scripted[]) => {
  const seen: { url: string; headers: Record<string, string>; body: string }[] = [];
  const fetch: FetchLike = async (url, init) => {
    const step = script[Math.min(seen.length, script.length - 1)] as Scripted;
    seen.push({ url, headers: init.headers, body: init.body });
    if (step.throws !== undefined) throw step.throws;
    return {
      status: step.status,
      headers: { get: (name: string) => step.headers?.[name.toLowerCase()] ?? null },
      text: async () => step.body ?? "",
    };
  };
  return { fetch, seen };
};

const make = (script: readonly Scripted[], extra: Partial<PortalOrchestratorOptions> = {}) => {
  const { fetch, seen } = scriptedFetch(script);
  const sleeps: number[] = [];
  const events: PortalCallEvent[] = [];
  const orchestrator = createPortalOrchestrator({
    fetch,
    allowedHosts: undefined,
    random: () => 0.5,
    sleep: async (ms) => void sleeps.push(ms),
    onCall: (event) => void events.push(event),
    ...extra,
  });
  return { orchestrator, seen, sleeps, events };
};

const expectNoKey = (value: unknown) => {
  expect(JSON.stringify(value)).not.toContain(SECRET);
  expect(String(E.isLeft(value as E.Either<unknown, unknown>) ? (value as E.Left<{ reason: string }>).left.reason : "")).not.toContain(SECRET);
  expect(inspect(value, { depth: 10 })).not.toContain(SECRET);
};

const PROXY = { status: 200, body: '{"id":1001,"enterpriseProxyId":10,"name":"x","value":"y"}' };
const ERROR_400 = { status: 400, body: '{"error":{"code":-32603,"message":"privileges check failed"}}' };

describe("createPortalOrchestrator", () => {
  it("posts {} with Content-Type and Authorization: Token to the joined URL", async () => {
    const { orchestrator, seen } = make([PROXY]);
    const identity = await orchestrator.identify(target("https://vco.example.net/vco"))();
    expect(identity).toEqual(E.right({ kind: "partner", partnerId: 10 }));
    expect(seen).toEqual([
      {
        url: "https://vco.example.net/vco/portal/rest/enterpriseProxy/getEnterpriseProxyProperty",
        headers: { "content-type": "application/json", accept: "application/json", authorization: `Token ${SECRET}` },
        body: "{}",
      },
    ]);
  });

  it("asks getEnterprise after a partner refusal body, and tells a customer by its id", async () => {
    const { orchestrator, seen } = make([ERROR_400, { status: 200, body: '{"id":77,"logicalId":"u"}' }]);
    expect(await orchestrator.identify(target())()).toEqual(E.right({ kind: "customer", customerId: 77 }));
    expect(seen.map((s) => s.url.split("/rest/")[1])).toEqual(["enterpriseProxy/getEnterpriseProxyProperty", "enterprise/getEnterprise"]);
  });

  it("treats a 200 with an error member on the partner call as 'not a partner'", async () => {
    const { orchestrator } = make([{ status: 200, body: '{"error":{"code":-32603,"message":"x"}}' }, ERROR_400]);
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorRejected");
  });

  it.each([401, 403])("rejects on HTTP %s at once, never retrying nor asking further", async (status) => {
    const { orchestrator, seen, events } = make([{ status, body: "" }]);
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorRejected");
    expect(seen).toHaveLength(1);
    expect(events).toMatchObject([{ method: "enterpriseProxy/getEnterpriseProxyProperty", outcome: "refused", attempts: 1 }]);
    expectNoKey(identity);
  });

  it("retries 5xx with growing jittered backoff, then reports the orchestrator unreachable", async () => {
    const { orchestrator, seen, sleeps, events } = make([{ status: 502, body: "<html>bad gateway</html>" }], { retries: 2, backoffBaseMs: 100 });
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toEqual({
      _tag: "OrchestratorUnreachable",
      reason: "The orchestrator failed to answer enterpriseProxy/getEnterpriseProxyProperty (HTTP 502) after 3 attempts.",
    });
    expect(seen).toHaveLength(3);
    expect(sleeps).toEqual([75, 150]);
    expect(events).toMatchObject([{ outcome: "OrchestratorUnreachable", attempts: 3 }]);
  });

  it("succeeds when a retry does", async () => {
    const { orchestrator, seen } = make([{ status: 503 }, { status: 429 }, PROXY]);
    expect(await orchestrator.identify(target())()).toEqual(E.right({ kind: "partner", partnerId: 10 }));
    expect(seen).toHaveLength(3);
  });

  it("honours Retry-After (seconds or date) when within the cap", async () => {
    const { orchestrator, sleeps } = make([{ status: 429, headers: { "retry-after": "2" } }, PROXY], { timeoutMs: 10_000 });
    expect(E.isRight(await orchestrator.identify(target())())).toBe(true);
    expect(sleeps).toEqual([2000]);
  });

  it("does not wait for a Retry-After beyond the cap: rate limited at once, with retryAfterSeconds", async () => {
    const { orchestrator, seen, sleeps } = make([{ status: 429, headers: { "retry-after": "120" } }], { timeoutMs: 10_000 });
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toMatchObject({ _tag: "OrchestratorRateLimited", retryAfterSeconds: 120 });
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("reports rate limiting after the retries run out", async () => {
    const { orchestrator, seen } = make([{ status: 429, headers: { "retry-after": "1" } }], { retries: 1 });
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toMatchObject({ _tag: "OrchestratorRateLimited", retryAfterSeconds: 1 });
    expect(seen).toHaveLength(2);
  });

  it("retries a dropped connection but not an unknown host", async () => {
    const reset = make([{ status: 0, throws: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }) }]);
    const first = await reset.orchestrator.identify(target())();
    expect(E.isLeft(first) && first.left._tag).toBe("OrchestratorUnreachable");
    expect(reset.seen).toHaveLength(3);
    const dns = make([{ status: 0, throws: Object.assign(new Error(`getaddrinfo ENOTFOUND ${SECRET}`), { code: "ENOTFOUND" }) }]);
    const second = await dns.orchestrator.identify(target())();
    expect(E.isLeft(second) && second.left).toEqual({
      _tag: "OrchestratorUnreachable",
      reason: "The orchestrator could not be reached for enterpriseProxy/getEnterpriseProxyProperty (ENOTFOUND).",
    });
    expect(dns.seen).toHaveLength(1);
    expectNoKey(second);
  });

  it.each([
    ["not JSON", { status: 200, body: "<html>" }],
    ["a proxy without enterpriseProxyId", { status: 200, body: '{"id":1}' }],
    ["a malformed error body", { status: 400, body: '{"error":"nope"}' }],
    ["a 400 without error body", { status: 400, body: "{}" }],
    ["a redirect", { status: 302, headers: { location: "https://elsewhere.example/" } }],
    ["a 404", { status: 404, body: '{"error":{"code":-32601,"message":"Method not found"}}' }],
  ])("calls %s garbage", async (_, step) => {
    const { orchestrator, seen } = make([step]);
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorGarbage");
    expect(seen).toHaveLength(1);
    expectNoKey(identity);
  });

  it("calls an answer over the size limit garbage", async () => {
    const { orchestrator } = make([{ status: 0, throws: Object.assign(new Error("content size over limit"), { type: "max-size" }) }]);
    const customers = await orchestrator.listPartnerCustomers(target(), 10)();
    expect(E.isLeft(customers) && customers.left._tag).toBe("OrchestratorGarbage");
  });

  it("never echoes the orchestrator's error message (it could quote the key)", async () => {
    const { orchestrator } = make([{ status: 400, body: JSON.stringify({ error: { code: 1, message: `bad token ${SECRET}` } }) }]);
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorRejected");
    expectNoKey(identity);
  });

  it("lists with the partner id, and calls a 200 with an error member garbage but a 400 error body a refusal", async () => {
    const ok = make([{ status: 200, body: '[{"id":1,"logicalId":"a"}]' }]);
    const customers = await ok.orchestrator.listPartnerCustomers(target(), 10)();
    expect(E.isRight(customers) && customers.right).toHaveLength(1);
    expect(ok.seen[0]?.body).toBe('{"enterpriseProxyId":10}');
    const contradictory = make([{ status: 200, body: '{"error":{"code":-32603,"message":"x"}}' }]);
    const garbage = await contradictory.orchestrator.listPartnerCustomers(target(), 10)();
    expect(E.isLeft(garbage) && garbage.left._tag).toBe("OrchestratorGarbage");
    const refused = await make([ERROR_400]).orchestrator.listPartnerCustomers(target(), 10)();
    expect(E.isLeft(refused) && refused.left._tag).toBe("OrchestratorRejected");
  });

  describe("host and scheme rules", () => {
    it("refuses a host outside the allowlist without any network call", async () => {
      const { orchestrator, seen } = make([PROXY], { allowedHosts: ["vco.example.net"] });
      const refused = await orchestrator.identify(target("https://other.example.net/"))();
      expect(E.isLeft(refused) && refused.left).toEqual({
        _tag: "OrchestratorRejected",
        reason: "The orchestrator host is not in SDWAN_ORCHESTRATOR_ALLOWED_HOSTS.",
      });
      expect(seen).toHaveLength(0);
      expect(E.isRight(await orchestrator.identify(target("https://VCO.EXAMPLE.NET:8443/"))())).toBe(true);
    });

    it("reads SDWAN_ORCHESTRATOR_ALLOWED_HOSTS when no allowlist is given", async () => {
      process.env["SDWAN_ORCHESTRATOR_ALLOWED_HOSTS"] = "vco.example.net";
      try {
        const { fetch, seen } = scriptedFetch([PROXY]);
        const orchestrator = createPortalOrchestrator({ fetch });
        const refused = await orchestrator.identify(target("https://other.example.net/"))();
        expect(E.isLeft(refused) && refused.left._tag).toBe("OrchestratorRejected");
        expect(seen).toHaveLength(0);
      } finally {
        delete process.env["SDWAN_ORCHESTRATOR_ALLOWED_HOSTS"];
      }
    });

    it("speaks only http and https", async () => {
      const { orchestrator, seen } = make([PROXY]);
      const refused = await orchestrator.identify(target("ftp://vco.example.net/"))();
      expect(E.isLeft(refused) && refused.left._tag).toBe("OrchestratorRejected");
      expect(seen).toHaveLength(0);
    });
  });
});
