import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { request as httpsRequest } from "node:https";
import {
  createTestCertificates,
  GENERATED_TOKEN_EXPIRATION,
  startOrchestratorSimulator,
  type OrchestratorSimulator,
  type PortalMethod,
} from "../src/index.js";

const PARTNER_KEY = "sample-partner-key-1";
const CUSTOMER_KEY = "sample-customer-key-1-1";

const call = async (sim: OrchestratorSimulator, method: PortalMethod, key: string | undefined, body = "{}") => {
  const res = await fetch(`${sim.url}portal/rest/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key === undefined ? {} : { authorization: `Token ${key}` }) },
    body,
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
};

describe("orchestrator simulator over HTTP", () => {
  let sim: OrchestratorSimulator;

  beforeAll(async () => {
    sim = await startOrchestratorSimulator();
  });
  afterAll(() => sim.stop());
  beforeEach(() => {
    sim.resetCalls();
    for (const key of ["*", PARTNER_KEY, CUSTOMER_KEY]) sim.setFault(key, undefined);
  });

  it("listens on a free port of 127.0.0.1 and serves the shipped sample", () => {
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(sim.data.partners.length).toBeGreaterThanOrEqual(3);
  });

  it("answers a partner key's getEnterpriseProxyProperty with its enterpriseProxyId", async () => {
    const answer = await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", PARTNER_KEY);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ enterpriseProxyId: 10, dataType: "STRING", isPassword: false });
  });

  it("refuses getEnterprise for a partner key and the proxy methods for a customer key with 400 error bodies", async () => {
    const partner = await call(sim, "enterprise/getEnterprise", PARTNER_KEY);
    expect(partner.status).toBe(400);
    expect(partner.json).toMatchObject({ error: { code: expect.any(Number), message: expect.any(String) } });
    const customer = await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", CUSTOMER_KEY);
    expect(customer.status).toBe(400);
    const list = await call(sim, "enterpriseProxy/getEnterpriseProxyEnterprises", CUSTOMER_KEY);
    expect(list.status).toBe(400);
  });

  it("answers a customer key's getEnterprise with its enterprise", async () => {
    const answer = await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ id: 1000, logicalId: expect.any(String) });
  });

  it("lists a partner's enterprises, as stored, and only for its own enterpriseProxyId", async () => {
    const own = await call(
      sim,
      "enterpriseProxy/getEnterpriseProxyEnterprises",
      PARTNER_KEY,
      '{"enterpriseProxyId":10}',
    );
    expect(own.status).toBe(200);
    expect(own.json).toEqual(sim.data.partners[0]?.enterprises);
    const inferred = await call(sim, "enterpriseProxy/getEnterpriseProxyEnterprises", PARTNER_KEY);
    expect(inferred.json).toEqual(own.json);
    const other = await call(
      sim,
      "enterpriseProxy/getEnterpriseProxyEnterprises",
      PARTNER_KEY,
      '{"enterpriseProxyId":11}',
    );
    expect(other.status).toBe(400);
  });

  it("lists the API tokens of a partner's and of an enterprise's keys, and gives a key without that right the privilege error", async () => {
    const partner = await call(sim, "enterpriseProxy/getApiTokens", PARTNER_KEY, '{"enterpriseProxyId":10}');
    expect(partner.status).toBe(200);
    expect(partner.json).toEqual([
      expect.objectContaining({
        tokenUuid: "00000000-0000-4000-8000-000000000001",
        expiration: GENERATED_TOKEN_EXPIRATION,
        state: "ENABLED",
        isRevoked: false,
        enterpriseProxyId: 10,
      }),
    ]);
    const customer = await call(sim, "enterprise/getApiTokens", CUSTOMER_KEY);
    expect(customer.status).toBe(200);
    expect(customer.json).toEqual([
      expect.objectContaining({ tokenUuid: "00000000-0000-4000-8000-000000000002", enterpriseId: 1000 }),
    ]);
    const privilege = { error: { code: -32603, message: "privileges check failed" } };
    for (const [method, key] of [
      ["enterprise/getApiTokens", "sample-customer-key-1-2"],
      ["enterpriseProxy/getApiTokens", CUSTOMER_KEY],
      ["enterprise/getApiTokens", PARTNER_KEY],
    ] as const) {
      const refused = await call(sim, method, key);
      expect([refused.status, refused.json], `${method} with ${key}`).toEqual([400, privilege]);
    }
  });

  it("answers 400 with a tokenError body to an unknown or missing token (the Swagger documents no 401)", async () => {
    for (const key of ["nope", undefined]) {
      const answer = await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", key);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: -32000 } });
    }
  });

  it("decodes its input: a body that is not a JSON object is a 400 parse error", async () => {
    for (const body of ["", "not json", "[]", "null"]) {
      const answer = await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", PARTNER_KEY, body);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ error: { code: -32700 } });
    }
  });

  it("answers 404 for other methods and 405 for other verbs", async () => {
    expect((await call(sim, "enterprise/getEnterpriseEdges" as PortalMethod, PARTNER_KEY)).status).toBe(404);
    const get = await fetch(`${sim.url}portal/rest/enterprise/getEnterprise`);
    expect(get.status).toBe(405);
  });

  it("counts calls per method and per key, and records each request", async () => {
    await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", PARTNER_KEY);
    await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", CUSTOMER_KEY);
    await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
    expect(sim.calls.total).toBe(3);
    expect(sim.calls.byMethod["enterpriseProxy/getEnterpriseProxyProperty"]).toBe(2);
    expect(sim.callsFor(CUSTOMER_KEY)).toEqual({
      "enterpriseProxy/getEnterpriseProxyProperty": 1,
      "enterprise/getEnterprise": 1,
      "enterpriseProxy/getEnterpriseProxyEnterprises": 0,
      "enterpriseProxy/getApiTokens": 0,
      "enterprise/getApiTokens": 0,
      "enterprise/refreshApiToken": 0,
      "enterpriseProxy/createApiToken": 0,
      "enterpriseProxy/downloadApiToken": 0,
      "enterpriseProxy/revokeApiToken": 0,
    });
    expect(sim.requests).toHaveLength(3);
    expect(sim.requests[0]?.headers.authorization).toBe(`Token ${PARTNER_KEY}`);
  });

  describe("fault injection", () => {
    it("delays", async () => {
      sim.setFault(PARTNER_KEY, { kind: "delay", ms: 150 });
      const started = Date.now();
      const answer = await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", PARTNER_KEY);
      expect(answer.status).toBe(200);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    });

    it("answers 500 with an error body", async () => {
      sim.setFault("*", { kind: "serverError" });
      const answer = await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
      expect(answer.status).toBe(500);
      expect(answer.json).toMatchObject({ error: { code: -32603 } });
    });

    it("answers 429 with Retry-After", async () => {
      sim.setFault("*", { kind: "rateLimit", retryAfter: "3" });
      const answer = await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
      expect(answer.status).toBe(429);
      expect(answer.headers.get("retry-after")).toBe("3");
    });

    it("answers malformed JSON", async () => {
      sim.setFault("*", { kind: "malformedJson" });
      const answer = await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
      expect(answer.status).toBe(200);
      expect(answer.json).toBeUndefined();
    });

    it("answers 200 with an error member", async () => {
      sim.setFault("*", { kind: "errorBody" });
      const answer = await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({ error: { code: expect.any(Number) } });
    });

    it("resets the connection", async () => {
      sim.setFault("*", { kind: "reset" });
      await expect(call(sim, "enterprise/getEnterprise", CUSTOMER_KEY)).rejects.toThrow();
    });

    it.each([400, 403, 500])("answers an error body at %s", async (status) => {
      sim.setFault("*", { kind: "errorBody", status });
      const answer = await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
      expect(answer.status).toBe(status);
      expect(answer.json).toMatchObject({ error: { code: expect.any(Number) } });
    });

    it("answers a bare status with no body", async () => {
      sim.setFault("*", { kind: "bareStatus", status: 403 });
      const answer = await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
      expect([answer.status, answer.text]).toEqual([403, ""]);
    });

    it("answers without the id each method is asked for", async () => {
      sim.setFault("*", { kind: "missingId" });
      const property = await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", PARTNER_KEY);
      expect(property.status).toBe(200);
      expect(property.json).not.toHaveProperty("enterpriseProxyId");
      expect((await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY)).json).not.toHaveProperty("id");
      expect((await call(sim, "enterpriseProxy/getEnterpriseProxyEnterprises", PARTNER_KEY)).json).toEqual([{}]);
    });

    it("answers HTML, as a proxy's 502 page or at 200", async () => {
      sim.setFault("*", { kind: "html", status: 502 });
      const proxy = await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
      expect([proxy.status, proxy.headers.get("content-type")]).toEqual([502, "text/html"]);
      expect(proxy.text).toContain("502 Bad Gateway");
      sim.setFault("*", { kind: "html" });
      expect((await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY)).status).toBe(200);
    });

    it("redirects to a login page", async () => {
      await using prefixed = await startOrchestratorSimulator({ prefix: "/vco" });
      prefixed.setFault("*", { kind: "redirectToLogin" });
      const answer = await fetch(`${prefixed.url}portal/rest/enterprise/getEnterprise`, {
        method: "POST",
        body: "{}",
        redirect: "manual",
      });
      expect([answer.status, answer.headers.get("location")]).toEqual([302, "/vco/login.html"]);
    });

    it("keeps a rate-limit penalty without Retry-After for penaltyMs, then answers again", async () => {
      sim.setFault(CUSTOMER_KEY, { kind: "ratePenalty", penaltyMs: 300 });
      for (let i = 0; i < 3; i += 1) {
        const answer = await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
        expect([answer.status, answer.headers.get("retry-after")]).toEqual([429, null]);
      }
      expect((await call(sim, "enterprise/getEnterprise", "sample-customer-key-1-2")).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 320));
      expect((await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY)).status).toBe(200);
      sim.setFault(CUSTOMER_KEY, undefined);
    });

    it("limits a fault to one key, one method and a number of calls", async () => {
      sim.setFault(PARTNER_KEY, {
        kind: "serverError",
        status: 503,
        times: 2,
        method: "enterpriseProxy/getEnterpriseProxyProperty",
      });
      expect((await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY)).status).toBe(200);
      expect((await call(sim, "enterprise/getEnterprise", PARTNER_KEY)).status).toBe(400);
      expect((await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", PARTNER_KEY)).status).toBe(503);
      expect((await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", PARTNER_KEY)).status).toBe(503);
      expect((await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", PARTNER_KEY)).status).toBe(200);
    });
  });
});

describe("orchestrator simulator options", () => {
  it("serves under a path prefix, and nothing outside it", async () => {
    await using sim = await startOrchestratorSimulator({ prefix: "/vco/" });
    expect(sim.url).toMatch(/\/vco\/$/);
    expect((await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", PARTNER_KEY)).status).toBe(200);
    const outside = await fetch(new URL("/portal/rest/enterpriseProxy/getEnterpriseProxyProperty", sim.url), {
      method: "POST",
      headers: { authorization: `Token ${PARTNER_KEY}` },
      body: "{}",
    });
    expect(outside.status).toBe(404);
  });

  it("serves HTTPS with a certificate from a test CA, trusted only with that CA", async () => {
    const certificates = createTestCertificates();
    await using sim = await startOrchestratorSimulator({ tls: { key: certificates.key, cert: certificates.cert } });
    expect(sim.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    const post = (ca: string | undefined) =>
      new Promise<number | string>((resolve) => {
        const request = httpsRequest(
          `${sim.url}portal/rest/enterprise/getEnterprise`,
          { method: "POST", ...(ca === undefined ? {} : { ca }), headers: { authorization: `Token ${CUSTOMER_KEY}` } },
          (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          },
        );
        request.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
        request.end("{}");
      });
    expect(await post(certificates.caCert)).toBe(200);
    expect(await post(undefined)).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    expect(await post(createTestCertificates().caCert)).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
  });

  it("generates N enterprises for load tests", async () => {
    await using sim = await startOrchestratorSimulator({
      generate: { partners: 2, enterprisesPerPartner: 1500 },
      record: false,
    });
    const answer = await call(
      sim,
      "enterpriseProxy/getEnterpriseProxyEnterprises",
      "generated-partner-key-2",
      '{"enterpriseProxyId":11}',
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toHaveLength(1500);
    expect(sim.requests).toHaveLength(0);
    expect(sim.calls.lastServeMs["enterpriseProxy/getEnterpriseProxyEnterprises"]).toBeGreaterThan(0);
  });
});
