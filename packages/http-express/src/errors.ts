import { describeError, type DomainError, type FieldError, type OrchestratorError } from "@sdwan-connections/core";
import {
  ORCHESTRATOR_PROBLEMS,
  PROBLEMS,
  problemType,
  type OrchestratorProblemSlug,
  type Problem as ProblemBody,
  type ProblemSlug,
} from "@sdwan-connections/core/wire";

/** An RFC 9457 problem body (the wire's, with every problem's slug, status and title), plus its headers. */
export interface Problem {
  readonly status: number;
  readonly body: ProblemBody;
  readonly headers?: Readonly<Record<string, string>>;
}

export const problem = (
  slug: ProblemSlug,
  detail: string,
  extra: {
    readonly errors?: readonly FieldError[];
    readonly refusal?: { readonly cause: OrchestratorProblemSlug; readonly reason: string };
    readonly headers?: Readonly<Record<string, string>>;
  } = {},
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
      ...extra.refusal,
    },
    ...(extra.headers === undefined ? {} : { headers: extra.headers }),
  };
};

export const invalidRequest = (errors: readonly FieldError[]): Problem =>
  problem("invalid-input", errors.map((e) => `${e.field}: ${e.message}`).join("; "), { errors });

const retryAfterHeader = (error: OrchestratorError): { headers?: Readonly<Record<string, string>> } =>
  error._tag === "OrchestratorRateLimited" && error.retryAfterSeconds !== undefined
    ? { headers: { "Retry-After": String(error.retryAfterSeconds) } }
    : {};

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
        {
          refusal: { cause: ORCHESTRATOR_PROBLEMS[error.cause._tag], reason: error.cause.reason },
          ...retryAfterHeader(error.cause),
        },
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
