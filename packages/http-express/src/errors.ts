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

/**
 * Every problem this service answers, by its type's slug: the status and the title. One table for the
 * answers and the OpenAPI document, which lists these types and titles.
 */
export const PROBLEMS = {
  "invalid-input": { status: 400, title: "Invalid input" },
  unauthorized: { status: 401, title: "Unauthorized" },
  forbidden: { status: 403, title: "Forbidden" },
  "not-found": { status: 404, title: "Connection not found" },
  "no-such-endpoint": { status: 404, title: "Not found" },
  "token-not-found": { status: 404, title: "Service token not found" },
  "grant-not-found": { status: 404, title: "Grant not found" },
  "webhook-not-found": { status: 404, title: "Webhook not found" },
  "delivery-not-found": { status: 404, title: "Webhook delivery not found" },
  "method-not-allowed": { status: 405, title: "Method not allowed" },
  "already-exists": { status: 409, title: "Connection already exists" },
  "not-a-partner": { status: 409, title: "Not a partner connection" },
  "token-already-exists": { status: 409, title: "Service token already exists" },
  "grant-already-exists": { status: 409, title: "Grant already exists" },
  "delivery-pending": { status: 409, title: "Webhook delivery still pending" },
  "version-mismatch": { status: 412, title: "The connection was changed meanwhile" },
  "delivery-event-expired": { status: 410, title: "Webhook delivery's event no longer kept" },
  "body-too-large": { status: 413, title: "Request body too large" },
  "unsupported-media-type": { status: 415, title: "Unsupported media type" },
  "validation-refused": { status: 422, title: "Validation failed" },
  "too-many-failed-logins": { status: 429, title: "Too many failed logins" },
  "too-many-key-checks": { status: 429, title: "Too many key checks" },
  "too-many-event-streams": { status: 429, title: "Too many event streams" },
  "internal-error": { status: 500, title: "Internal error" },
  "orchestrator-rate-limited": { status: 502, title: "The orchestrator is rate-limiting this service" },
  "orchestrator-rejected": { status: 502, title: "The orchestrator refused the request" },
  "orchestrator-failed": { status: 502, title: "The orchestrator failed" },
  "orchestrator-unreachable": { status: 502, title: "The orchestrator cannot be reached" },
  "orchestrator-garbage": { status: 502, title: "The orchestrator gave an answer that cannot be used" },
  "storage-unavailable": { status: 503, title: "Storage unavailable" },
  "identity-provider-unavailable": { status: 503, title: "The OpenID provider cannot be reached" },
  "shutting-down": { status: 503, title: "The service is shutting down" },
  "orchestrator-timeout": { status: 504, title: "The orchestrator did not answer in time" },
} as const satisfies Record<string, { readonly status: number; readonly title: string }>;

export type ProblemSlug = keyof typeof PROBLEMS;

/** Problem types are URNs: stable identifiers that need no web page to resolve. */
export const problemType = (slug: ProblemSlug): string => `urn:sdwan-connections:problem:${slug}`;

export const problem = (
  slug: ProblemSlug,
  detail: string,
  extra: { readonly errors?: readonly FieldError[]; readonly headers?: Readonly<Record<string, string>> } = {},
): Problem => {
  const { status, title } = PROBLEMS[slug];
  return {
    status,
    body: {
      type: problemType(slug),
      title,
      status,
      detail,
      ...(extra.errors === undefined ? {} : { errors: extra.errors }),
    },
    ...(extra.headers === undefined ? {} : { headers: extra.headers }),
  };
};

export const invalidRequest = (errors: readonly FieldError[]): Problem =>
  problem("invalid-input", errors.map((e) => `${e.field}: ${e.message}`).join("; "), { errors });

const retryAfterHeader = (error: OrchestratorError): { readonly headers?: Readonly<Record<string, string>> } =>
  error._tag === "OrchestratorRateLimited" && error.retryAfterSeconds !== undefined
    ? { headers: { "Retry-After": String(error.retryAfterSeconds) } }
    : {};

/**
 * What each orchestrator error is as a problem. 502 for every answer of the orchestrator this service cannot
 * use: a failure (`orchestrator-failed`) is the upstream's, not this service's (500) and not the key's (rejected).
 */
const ORCHESTRATOR_PROBLEMS = {
  OrchestratorTimedOut: "orchestrator-timeout",
  OrchestratorRateLimited: "orchestrator-rate-limited",
  OrchestratorRejected: "orchestrator-rejected",
  OrchestratorFailed: "orchestrator-failed",
  OrchestratorUnreachable: "orchestrator-unreachable",
  OrchestratorGarbage: "orchestrator-garbage",
} as const satisfies Record<OrchestratorError["_tag"], ProblemSlug>;

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
      return problem("not-found", detail);
    case "AlreadyExists":
      return problem("already-exists", detail);
    case "VersionMismatch":
      return problem("version-mismatch", `${detail} Read it again (its ETag) and retry.`);
    case "NotAPartner":
      return problem("not-a-partner", detail);
    case "ValidationRefused":
      // Says what happened (a refused key, or an orchestrator that failed or could not be reached), never "refused" for all.
      // A rate limit whose wait did not fit the deadline: the client learns when to try again.
      return problem(
        "validation-refused",
        `${PROBLEMS[ORCHESTRATOR_PROBLEMS[error.cause._tag]].title}, so connection '${error.alias}' was not saved: ${error.cause.reason}`,
        retryAfterHeader(error.cause),
      );
    case "StorageFailure":
      return problem("storage-unavailable", "The connection store cannot be used right now.");
    case "OrchestratorTimedOut":
    case "OrchestratorRateLimited":
    case "OrchestratorRejected":
    case "OrchestratorFailed":
    case "OrchestratorUnreachable":
    case "OrchestratorGarbage":
      return problem(ORCHESTRATOR_PROBLEMS[error._tag], detail, retryAfterHeader(error));
  }
};
