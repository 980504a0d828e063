import { describeError, type DomainError, type FieldError, type OrchestratorError } from "@sdwan-connections/core";

/** An RFC 9457 problem body, plus the headers that go with it. */
export interface Problem {
  readonly status: number;
  readonly body: ProblemBody;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ProblemBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly errors?: readonly FieldError[];
}

/** Problem types are URNs: stable identifiers that need no web page to resolve. */
const problemType = (slug: string): string => `urn:sdwan-connections:problem:${slug}`;

export const problem = (
  status: number,
  slug: string,
  title: string,
  detail: string,
  extra: { readonly errors?: readonly FieldError[]; readonly headers?: Readonly<Record<string, string>> } = {},
): Problem => ({
  status,
  body: {
    type: problemType(slug),
    title,
    status,
    detail,
    ...(extra.errors === undefined ? {} : { errors: extra.errors }),
  },
  ...(extra.headers === undefined ? {} : { headers: extra.headers }),
});

export const invalidRequest = (errors: readonly FieldError[]): Problem =>
  problem(400, "invalid-input", "Invalid input", errors.map((e) => `${e.field}: ${e.message}`).join("; "), { errors });

const retryAfterHeader = (error: OrchestratorError): { readonly headers?: Readonly<Record<string, string>> } =>
  error._tag === "OrchestratorRateLimited" && error.retryAfterSeconds !== undefined ? { headers: { "Retry-After": String(error.retryAfterSeconds) } } : {};

/**
 * The one place where a domain error becomes an HTTP answer. Every message
 * comes from `describeError`, which never contains an apiKey.
 */
export const domainErrorToProblem = (error: DomainError): Problem => {
  const detail = describeError(error);
  switch (error._tag) {
    case "InvalidInput":
      return invalidRequest(error.errors);
    case "NotFound":
      return problem(404, "not-found", "Connection not found", detail);
    case "AlreadyExists":
      return problem(409, "already-exists", "Connection already exists", detail);
    case "VersionMismatch":
      return problem(412, "version-mismatch", "The connection was changed meanwhile", `${detail} Read it again (its ETag) and retry.`);
    case "NotAPartner":
      return problem(409, "not-a-partner", "Not a partner connection", detail);
    case "ValidationRefused":
      // A rate limit whose wait did not fit the deadline: the client learns when to try again.
      return problem(422, "validation-refused", "The orchestrator did not accept the connection", detail, retryAfterHeader(error.cause));
    case "StorageFailure":
      return problem(503, "storage-unavailable", "Storage unavailable", "The connection store cannot be used right now.");
    case "OrchestratorTimedOut":
      return problem(504, "orchestrator-timeout", "The orchestrator did not answer in time", detail);
    case "OrchestratorRateLimited":
      return problem(502, "orchestrator-rate-limited", "The orchestrator is rate-limiting this service", detail, retryAfterHeader(error));
    case "OrchestratorRejected":
      return problem(502, "orchestrator-rejected", "The orchestrator refused the request", detail);
    case "OrchestratorFailed":
      // 502 as for every answer of the orchestrator this service cannot use: the upstream failed, not this service (500) and not the key (rejected).
      return problem(502, "orchestrator-failed", "The orchestrator failed", detail);
    case "OrchestratorUnreachable":
      return problem(502, "orchestrator-unreachable", "The orchestrator cannot be reached", detail);
    case "OrchestratorGarbage":
      return problem(502, "orchestrator-garbage", "The orchestrator gave an answer that cannot be used", detail);
  }
};
