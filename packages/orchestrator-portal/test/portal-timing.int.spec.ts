/**
 * The portal client's wall-clock promises (parallel checks, cancellation,
 * Retry-After, deadlines), in the integration project: their bounds are real
 * time, which a loaded machine can stretch.
 */
import { performance } from "node:perf_hooks";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { ENTERPRISE, ERROR_400, make, PROXY, tagOf, target, TOKEN_ERROR } from "./scripted-portal.js";

describe("createPortalOrchestrator in real time", () => {
  it("asks both checks at once: a customer key costs one round trip, not two", async () => {
    const { orchestrator } = make({ partner: [{ ...ERROR_400, delayMs: 100 }], customer: [{ ...ENTERPRISE, delayMs: 100 }] });
    const started = performance.now();
    expect(await orchestrator.identify(target())()).toEqual(E.right({ kind: "customer", customerId: 77 }));
    expect(performance.now() - started).toBeLessThan(190);
  });

  it("does not wait for the customer check once the partner check gave a proxy id", async () => {
    const { orchestrator, events } = make({ partner: [PROXY], customer: [{ ...ENTERPRISE, delayMs: 5_000 }] });
    const started = performance.now();
    expect(await orchestrator.identify(target())()).toEqual(E.right({ kind: "partner", partnerId: 10 }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(events.find((e) => e.method === "enterprise/getEnterprise")?.outcome).toBe("cancelled");
  });

  it("honours Retry-After when the wait fits the deadline", async () => {
    const { orchestrator, methods } = make({ partner: [{ status: 429, headers: { "retry-after": "1" } }, PROXY], customer: [TOKEN_ERROR] }, { timeoutMs: 5_000 });
    const started = performance.now();
    expect(await orchestrator.identify(target())()).toEqual(E.right({ kind: "partner", partnerId: 10 }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(methods("partner")).toHaveLength(2);
  });

  it("fails at once when a Retry-After does not fit the deadline, passing the wait on", async () => {
    const { orchestrator, seen } = make({ partner: [{ status: 429, headers: { "retry-after": "120" } }], customer: [{ status: 429, headers: { "retry-after": "120" } }] });
    const started = performance.now();
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toMatchObject({ _tag: "OrchestratorRateLimited", retryAfterSeconds: 120 });
    expect(seen).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("takes a 429 without Retry-After as the vendor's 5 s penalty", async () => {
    const { orchestrator, seen } = make({ partner: [ERROR_400], customer: [{ status: 429 }] }, { timeoutMs: 3_000 });
    const started = performance.now();
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toMatchObject({ _tag: "OrchestratorRateLimited", retryAfterSeconds: 5 });
    expect(seen).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("bounds all the work of one identification by one deadline, retries and waits included", async () => {
    // Each answer is a 503 after 300 ms: with a 1 s deadline, a third attempt would not fit.
    const { orchestrator, methods } = make({ partner: [{ status: 503, delayMs: 300 }], customer: [{ status: 503, delayMs: 300 }] }, { timeoutMs: 1_000, retries: 5 });
    const started = performance.now();
    const identity = await orchestrator.identify(target())();
    expect(tagOf(identity)).toBe("OrchestratorUnreachable");
    expect(performance.now() - started).toBeLessThan(1_000 + 250); // the deadline, plus scheduling slack
    expect(methods("customer").length).toBeLessThanOrEqual(3);
  });

  it("times out at the deadline when the orchestrator hangs", async () => {
    const { orchestrator, seen } = make({ partner: [{ ...PROXY, delayMs: 10_000 }], customer: [{ ...ENTERPRISE, delayMs: 10_000 }] }, { timeoutMs: 300 });
    const started = performance.now();
    const identity = await orchestrator.identify(target())();
    expect(E.isLeft(identity) && identity.left).toEqual({
      _tag: "OrchestratorTimedOut",
      reason: "The orchestrator did not answer enterprise/getEnterprise within the 300 ms deadline.",
    });
    expect(performance.now() - started).toBeLessThan(800);
    expect(seen).toHaveLength(2);
  });
});
