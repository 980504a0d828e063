import { inspect } from "node:util";
import { createServer } from "node:net";
import * as E from "fp-ts/lib/Either.js";
import type { OrchestratorError } from "@sdwan-connections/core";
import {
  startOrchestratorSimulator,
  type Fault,
  type OrchestratorSimulator,
} from "@sdwan-connections/orchestrator-simulator";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPortalOrchestrator, type PortalOrchestrator } from "../src/index.js";
import { SAMPLE_CUSTOMER_KEY, SAMPLE_PARTNER_KEY, targetFor } from "./helpers.js";

const KEYS = [SAMPLE_PARTNER_KEY, SAMPLE_CUSTOMER_KEY];
const PROPERTY = "enterpriseProxy/getEnterpriseProxyProperty";

/** The key must not be in the error however it is printed. */
const expectKeyless = (value: unknown, key: string) => {
  expect(JSON.stringify(value)).not.toContain(key);
  expect(inspect(value, { depth: 10 })).not.toContain(key);
  if (E.isLeft(value as E.Either<OrchestratorError, unknown>)) {
    const error = (value as E.Left<OrchestratorError>).left;
    expect(String(error.reason)).not.toContain(key);
    expect(String(new Error(error.reason))).not.toContain(key);
  }
};

describe("every simulator fault, through the real client", () => {
  let simulator: OrchestratorSimulator;
  let orchestrator: PortalOrchestrator;
  const partner = () => targetFor(simulator.url, SAMPLE_PARTNER_KEY);

  beforeAll(async () => {
    simulator = await startOrchestratorSimulator();
    orchestrator = createPortalOrchestrator({
      timeoutMs: 1_000,
      retries: 2,
      backoffBaseMs: 10,
      allowedHosts: undefined,
    });
  });
  afterAll(async () => {
    orchestrator.close();
    await simulator.stop();
  });
  beforeEach(() => {
    for (const key of ["*", ...KEYS]) simulator.setFault(key, undefined);
    simulator.resetCalls();
  });

  const identifyWith = async (fault: Fault) => {
    simulator.setFault(SAMPLE_PARTNER_KEY, fault);
    const identity = await orchestrator.identify(partner())();
    expectKeyless(identity, SAMPLE_PARTNER_KEY);
    return identity;
  };

  it("delay beyond the timeout: timed out, not retried", async () => {
    const started = Date.now();
    // An answer after 10 s: waited for, it would take all of them; the 1 s deadline, five times over for a loaded machine.
    const identity = await identifyWith({ kind: "delay", ms: 10_000 });
    expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorTimedOut");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(simulator.callsFor(SAMPLE_PARTNER_KEY)[PROPERTY]).toBe(1);
  });

  it("delay within the timeout: answered", async () => {
    const identity = await identifyWith({ kind: "delay", ms: 50 });
    expect(identity).toEqual(E.right({ kind: "partner", partnerId: 10 }));
  });

  it("500 with an error body on both checks, persisting: the orchestrator failed (not a refusal), after the retries", async () => {
    const identity = await identifyWith({ kind: "serverError" });
    expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorFailed");
    expect(simulator.callsFor(SAMPLE_PARTNER_KEY)[PROPERTY]).toBe(3);
  });

  it("a passing 500 with an error body: the retry succeeds", async () => {
    const identity = await identifyWith({ kind: "serverError", times: 1, method: PROPERTY });
    expect(identity).toEqual(E.right({ kind: "partner", partnerId: 10 }));
    expect(simulator.callsFor(SAMPLE_PARTNER_KEY)[PROPERTY]).toBe(2);
  });

  it("a passing 503 without the orchestrator's error body: the retry succeeds", async () => {
    const identity = await identifyWith({ kind: "bareStatus", status: 503, times: 1, method: PROPERTY });
    expect(identity).toEqual(E.right({ kind: "partner", partnerId: 10 }));
    expect(simulator.callsFor(SAMPLE_PARTNER_KEY)[PROPERTY]).toBe(2);
  });

  it("429 with Retry-After: 0 honoured, retried, then rate limited", async () => {
    const identity = await identifyWith({ kind: "rateLimit", retryAfter: "0" });
    expect(E.isLeft(identity) && identity.left).toMatchObject({
      _tag: "OrchestratorRateLimited",
      retryAfterSeconds: 0,
    });
    expect(simulator.callsFor(SAMPLE_PARTNER_KEY)[PROPERTY]).toBe(3);
  });

  it("429 with a Retry-After longer than the budget: rate limited at once", async () => {
    const identity = await identifyWith({ kind: "rateLimit", retryAfter: "30" });
    expect(E.isLeft(identity) && identity.left).toMatchObject({
      _tag: "OrchestratorRateLimited",
      retryAfterSeconds: 30,
    });
    expect(simulator.callsFor(SAMPLE_PARTNER_KEY)[PROPERTY]).toBe(1);
  });

  it("malformed JSON (not the orchestrator's API): could not connect", async () => {
    const identity = await identifyWith({ kind: "malformedJson" });
    expect(E.isLeft(identity) && identity.left).toEqual({
      _tag: "OrchestratorUnreachable",
      reason: "Could not connect to the orchestrator for enterprise/getEnterprise.",
    });
    simulator.setFault(SAMPLE_PARTNER_KEY, { kind: "malformedJson" });
    const customers = await orchestrator.listPartnerCustomers(partner(), 10)();
    expect(E.isLeft(customers) && customers.left._tag).toBe("OrchestratorUnreachable");
  });

  it("200 with an error member: the key is accepted by neither call when identifying; garbage when listing", async () => {
    const identity = await identifyWith({ kind: "errorBody" });
    expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorRejected");
    const customers = await orchestrator.listPartnerCustomers(partner(), 10)();
    expect(E.isLeft(customers) && customers.left._tag).toBe("OrchestratorGarbage");
    expectKeyless(customers, SAMPLE_PARTNER_KEY);
  });

  it("connection reset: retried, then unreachable", async () => {
    const identity = await identifyWith({ kind: "reset" });
    expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorUnreachable");
    expect(simulator.callsFor(SAMPLE_PARTNER_KEY)[PROPERTY]).toBe(3);
  });

  it("a fault on one key leaves other keys alone", async () => {
    simulator.setFault(SAMPLE_PARTNER_KEY, { kind: "serverError" });
    const customer = await orchestrator.identify(targetFor(simulator.url, SAMPLE_CUSTOMER_KEY))();
    expect(customer).toEqual(E.right({ kind: "customer", customerId: 1000 }));
  });

  it("a refused key is asked once per check, never retried", async () => {
    const identity = await orchestrator.identify(targetFor(simulator.url, "sample-unknown-key"))();
    expect(E.isLeft(identity) && identity.left._tag).toBe("OrchestratorRejected");
    expect(simulator.callsFor("sample-unknown-key")).toEqual({
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
  });

  it("another partner's id: refused", async () => {
    const customers = await orchestrator.listPartnerCustomers(partner(), 11)();
    expect(E.isLeft(customers) && customers.left._tag).toBe("OrchestratorRejected");
  });

  it("nothing listening: unreachable, without the key", async () => {
    const free = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const identity = await orchestrator.identify(targetFor(`http://127.0.0.1:${free}/`, SAMPLE_PARTNER_KEY))();
    // The same words as for any other way of not reaching the API: no port can be told open or closed from them.
    expect(E.isLeft(identity) && identity.left).toMatchObject({
      _tag: "OrchestratorUnreachable",
      reason: expect.stringMatching(
        /^Could not connect to the orchestrator for enterprise\/getEnterprise( after \d attempts)?\.$/,
      ),
    });
    expectKeyless(identity, SAMPLE_PARTNER_KEY);
  });
});
