import * as t from "io-ts";
import { IntegerCodec } from "../domain/codecs.js";
import { oneOf } from "../domain/decode.js";
import type { OrchestratorError } from "../domain/errors.js";

/**
 * Every problem the service answers (RFC 9457), by its type's slug: the status and the title. The slug is the tag
 * a client branches on (`problemSlugOf`), never the words of `detail`, which may change.
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
export const PROBLEM_SLUGS = Object.keys(PROBLEMS) as readonly ProblemSlug[];
export const ProblemSlug = oneOf(PROBLEM_SLUGS, "ProblemSlug");

/** Problem types are URNs: stable identifiers that need no web page to resolve. */
const PROBLEM_TYPE_PREFIX = "urn:sdwan-connections:problem:";
export const problemType = (slug: ProblemSlug): string => `${PROBLEM_TYPE_PREFIX}${slug}`;

/** The slug a problem's `type` names; undefined for a type this client does not know (a newer service's). */
export const problemSlugOf = (type: string): ProblemSlug | undefined => {
  const slug = type.startsWith(PROBLEM_TYPE_PREFIX) ? type.slice(PROBLEM_TYPE_PREFIX.length) : "";
  return Object.hasOwn(PROBLEMS, slug) ? (slug as ProblemSlug) : undefined;
};

/**
 * What each orchestrator error is as a problem. 502 for every answer of the orchestrator the service cannot
 * use: a failure (`orchestrator-failed`) is the upstream's, not the service's (500) and not the key's (rejected).
 */
export const ORCHESTRATOR_PROBLEMS = {
  OrchestratorTimedOut: "orchestrator-timeout",
  OrchestratorRateLimited: "orchestrator-rate-limited",
  OrchestratorRejected: "orchestrator-rejected",
  OrchestratorFailed: "orchestrator-failed",
  OrchestratorUnreachable: "orchestrator-unreachable",
  OrchestratorGarbage: "orchestrator-garbage",
} as const satisfies Record<OrchestratorError["_tag"], ProblemSlug>;
export type OrchestratorProblemSlug = (typeof ORCHESTRATOR_PROBLEMS)[OrchestratorError["_tag"]];
export const OrchestratorProblemSlug = oneOf(Object.values(ORCHESTRATOR_PROBLEMS), "OrchestratorProblemSlug");

/** One problem with one field of an input, e.g. `{ field: "apiKey", message: "must not be empty" }`. */
export const FieldError = t.type({ field: t.string, message: t.string }, "FieldError");
export type FieldError = t.TypeOf<typeof FieldError>;

/**
 * An RFC 9457 problem body. `type` is `urn:sdwan-connections:problem:<slug>` (`about:blank` for one a client makes
 * itself); `errors`, of invalid input, each bad field; `cause` and `reason`, of a refused validation (422): the
 * orchestrator problem that refused it and its reason.
 */
export const Problem = t.intersection(
  [
    t.type({ type: t.string, title: t.string, status: IntegerCodec, detail: t.string }),
    t.partial({
      errors: t.readonlyArray(FieldError),
      cause: OrchestratorProblemSlug,
      reason: t.string,
    }),
  ],
  "Problem",
);
export type Problem = t.TypeOf<typeof Problem>;
