import type { DomainError } from "@sdwan-connections/core";
import { describe, expect, it } from "vitest";
import { domainErrorToProblem } from "./errors.js";

const cases: [DomainError, number][] = [
  [{ _tag: "InvalidInput", errors: [{ field: "apiKey", message: "must not be empty" }] }, 400],
  [{ _tag: "NotFound", alias: "lab" }, 404],
  [{ _tag: "AlreadyExists", alias: "lab" }, 409],
  [{ _tag: "NotAPartner", alias: "lab" }, 409],
  [{ _tag: "ValidationRefused", alias: "lab", cause: { _tag: "OrchestratorRejected", reason: "refused" } }, 422],
  [{ _tag: "StorageFailure", reason: "disk full at /var/lib/x" }, 503],
  [{ _tag: "OrchestratorRejected", reason: "refused" }, 502],
  [{ _tag: "OrchestratorUnreachable", reason: "ECONNREFUSED" }, 502],
  [{ _tag: "OrchestratorGarbage", reason: "not JSON" }, 502],
  [{ _tag: "OrchestratorRateLimited", reason: "429", retryAfterSeconds: 3 }, 502],
  [{ _tag: "OrchestratorTimedOut", reason: "10 s" }, 504],
  [{ _tag: "OrchestratorFailed", reason: "HTTP 500, error code -32603" }, 502],
];

describe("domainErrorToProblem", () => {
  it.each(cases)("maps %j to %i with an RFC 9457 body", (error, status) => {
    const { status: actual, body } = domainErrorToProblem(error);
    expect(actual).toBe(status);
    expect(body).toMatchObject({
      status,
      type: expect.stringMatching(/^urn:sdwan-connections:problem:/),
      title: expect.any(String),
    });
  });

  it("explains a failed validation (422) with what happened and the orchestrator's reason, and field errors (400) with `errors`", () => {
    expect(domainErrorToProblem(cases[4]![0]).body).toMatchObject({
      title: "Validation failed",
      detail: "The orchestrator refused the request, so connection 'lab' was not saved: refused",
    });
    expect(domainErrorToProblem(cases[0]![0]).body.errors).toEqual([{ field: "apiKey", message: "must not be empty" }]);
  });

  it("never calls an orchestrator that cannot be reached or fails a refusal (issue 30, item 4)", () => {
    const unreachable: DomainError = {
      _tag: "ValidationRefused",
      alias: "lab",
      cause: { _tag: "OrchestratorUnreachable", reason: "Could not connect to the orchestrator." },
    };
    const failing: DomainError = {
      _tag: "ValidationRefused",
      alias: "lab",
      cause: { _tag: "OrchestratorFailed", reason: "HTTP 500." },
    };
    for (const error of [unreachable, failing]) {
      const { status, body } = domainErrorToProblem(error);
      expect(status).toBe(422);
      expect(`${body.title} ${body.detail}`).not.toMatch(/accept|refus|reject/i);
    }
    expect(domainErrorToProblem(unreachable).body.detail).toBe(
      "The orchestrator cannot be reached, so connection 'lab' was not saved: Could not connect to the orchestrator.",
    );
    expect(domainErrorToProblem(failing).body.detail).toBe(
      "The orchestrator failed, so connection 'lab' was not saved: HTTP 500.",
    );
  });

  it("does not tell clients storage internals", () => {
    expect(domainErrorToProblem(cases[5]![0]).body.detail).not.toContain("/var/lib");
  });

  it("tells a failing orchestrator (orchestrator-failed) from a refusal (orchestrator-rejected)", () => {
    expect(domainErrorToProblem(cases[11]![0]).body.type).toBe("urn:sdwan-connections:problem:orchestrator-failed");
    expect(domainErrorToProblem(cases[6]![0]).body.type).toBe("urn:sdwan-connections:problem:orchestrator-rejected");
  });

  it("passes Retry-After on when the orchestrator rate-limits", () => {
    expect(domainErrorToProblem(cases[9]![0]).headers).toEqual({ "Retry-After": "3" });
  });
});
