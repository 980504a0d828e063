import { inspect } from "node:util";
import * as E from "fp-ts/lib/Either.js";
import { startOrchestratorSimulator, type OrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPortalOrchestrator, type PortalCallEvent, type PortalOrchestrator } from "../src/index.js";
import { SAMPLE_CUSTOMER_KEY, SAMPLE_PARTNER_KEY, targetFor } from "./helpers.js";

describe("the key leaves only in the Authorization header of its own connection", () => {
  let simulator: OrchestratorSimulator;
  let other: OrchestratorSimulator;
  let orchestrator: PortalOrchestrator;
  const events: PortalCallEvent[] = [];

  beforeAll(async () => {
    simulator = await startOrchestratorSimulator();
    other = await startOrchestratorSimulator({ prefix: "/other" });
    orchestrator = createPortalOrchestrator({
      timeoutMs: 600,
      retries: 1,
      backoffBaseMs: 5,
      allowedHosts: undefined,
      onCall: (e) => void events.push(e),
    });
  });
  afterAll(async () => {
    orchestrator.close();
    await simulator.stop();
    await other.stop();
  });

  it("across success, refusal and every fault", async () => {
    const partner = targetFor(simulator.url, SAMPLE_PARTNER_KEY);
    const customer = targetFor(other.url, SAMPLE_CUSTOMER_KEY);
    const results: unknown[] = [];
    results.push(await orchestrator.identify(partner)());
    results.push(await orchestrator.listPartnerCustomers(partner, 10)());
    results.push(await orchestrator.identify(customer)());
    for (const fault of [
      { kind: "serverError" },
      { kind: "rateLimit", retryAfter: "0" },
      { kind: "malformedJson" },
      { kind: "missingId" },
      { kind: "errorBody" },
      { kind: "reset" },
      { kind: "delay", ms: 1_200 },
    ] as const) {
      simulator.setFault("*", fault);
      results.push(await orchestrator.identify(partner)());
      results.push(await orchestrator.listPartnerCustomers(partner, 10)());
    }
    simulator.setFault("*", undefined);

    // What each simulator received: each key only in its own connection's Authorization header.
    for (const [server, key, foreign] of [
      [simulator, SAMPLE_PARTNER_KEY, SAMPLE_CUSTOMER_KEY],
      [other, SAMPLE_CUSTOMER_KEY, SAMPLE_PARTNER_KEY],
    ] as const) {
      expect(server.requests.length).toBeGreaterThan(0);
      for (const request of server.requests) {
        const { authorization, ...rest } = request.headers;
        expect(authorization).toBe(`Token ${key}`);
        expect(JSON.stringify(rest)).not.toContain(key);
        expect(request.body).not.toContain(key);
        expect(request.url).not.toContain(key);
        expect(JSON.stringify(request)).not.toContain(foreign);
        expect(Object.keys(rest).filter((h) => /cookie|token|key|secret/i.test(h))).toEqual([]);
      }
    }
    // What the client handed back: results and metrics events.
    for (const key of [SAMPLE_PARTNER_KEY, SAMPLE_CUSTOMER_KEY]) {
      for (const result of results) {
        expect(JSON.stringify(result)).not.toContain(key);
        expect(inspect(result, { depth: 10 })).not.toContain(key);
        if (E.isLeft(result as E.Either<{ reason: string }, unknown>))
          expect(String((result as E.Left<{ reason: string }>).left.reason)).not.toContain(key);
      }
      expect(JSON.stringify(events)).not.toContain(key);
    }
    // Every call outcome shows up; "cancelled" too when a partner's id arrived before the customer check's answer.
    // (An answer that is not the orchestrator's API now ends a call as unreachable. Garbage is decided after the call
    // for an identification without the id, so it shows up among the results; within the call for a listing that is
    // not a list of enterprises, as each enterprise is read from the answer's bytes.)
    const expected = [
      "ok",
      "refused",
      "OrchestratorFailed",
      "OrchestratorGarbage",
      "OrchestratorUnreachable",
      "OrchestratorRateLimited",
      "OrchestratorTimedOut",
    ];
    const outcomes = new Set(events.map((e) => e.outcome));
    expect([...outcomes].filter((outcome) => outcome !== "cancelled").sort()).toEqual(expected.sort());
    const resultTags = new Set(
      results.flatMap((result) =>
        E.isLeft(result as E.Either<{ _tag: string }, unknown>) ? [(result as E.Left<{ _tag: string }>).left._tag] : [],
      ),
    );
    expect([...resultTags].sort()).toEqual([
      "OrchestratorFailed",
      "OrchestratorGarbage",
      "OrchestratorRateLimited",
      "OrchestratorRejected",
      "OrchestratorTimedOut",
      "OrchestratorUnreachable",
    ]);
  });
});
