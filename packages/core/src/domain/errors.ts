/** One problem with one field of an input, e.g. `{ field: "apiKey", message: "must not be empty" }`. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** Why an orchestrator call did not give a usable answer. */
export type OrchestratorError =
  | { readonly _tag: "OrchestratorRejected"; readonly reason: string }
  /** The orchestrator's API answered, but failed itself (a 5xx with its `error` body, still there after the retries): no verdict on the key. */
  | { readonly _tag: "OrchestratorFailed"; readonly reason: string }
  | { readonly _tag: "OrchestratorUnreachable"; readonly reason: string }
  | { readonly _tag: "OrchestratorTimedOut"; readonly reason: string }
  | { readonly _tag: "OrchestratorRateLimited"; readonly reason: string; readonly retryAfterSeconds?: number }
  | { readonly _tag: "OrchestratorGarbage"; readonly reason: string };

/**
 * Every way a use case can fail: one closed union, so each driving adapter
 * maps it with one exhaustive switch (HTTP status, CLI exit code). No variant
 * carries an apiKey; `reason`s are written by us, never copied from input.
 */
export type DomainError =
  | { readonly _tag: "NotFound"; readonly alias: string }
  | { readonly _tag: "AlreadyExists"; readonly alias: string }
  | { readonly _tag: "VersionMismatch"; readonly alias: string; readonly version: number }
  | { readonly _tag: "InvalidInput"; readonly errors: readonly FieldError[] }
  | { readonly _tag: "ValidationRefused"; readonly alias: string; readonly cause: OrchestratorError }
  | { readonly _tag: "NotAPartner"; readonly alias: string }
  | { readonly _tag: "StorageFailure"; readonly reason: string }
  | OrchestratorError;

export type DomainErrorTag = DomainError["_tag"];

export const notFound = (alias: string): DomainError => ({ _tag: "NotFound", alias });
export const alreadyExists = (alias: string): DomainError => ({ _tag: "AlreadyExists", alias });
export const versionMismatch = (alias: string, version: number): DomainError => ({
  _tag: "VersionMismatch",
  alias,
  version,
});
export const invalidInput = (errors: readonly FieldError[]): DomainError => ({ _tag: "InvalidInput", errors });
export const validationRefused = (alias: string, cause: OrchestratorError): DomainError => ({
  _tag: "ValidationRefused",
  alias,
  cause,
});
export const notAPartner = (alias: string): DomainError => ({ _tag: "NotAPartner", alias });
export const storageFailure = (reason: string): DomainError => ({ _tag: "StorageFailure", reason });

export const orchestratorRejected = (reason: string): OrchestratorError => ({ _tag: "OrchestratorRejected", reason });
export const orchestratorFailed = (reason: string): OrchestratorError => ({ _tag: "OrchestratorFailed", reason });
export const orchestratorUnreachable = (reason: string): OrchestratorError => ({
  _tag: "OrchestratorUnreachable",
  reason,
});
export const orchestratorTimedOut = (reason: string): OrchestratorError => ({ _tag: "OrchestratorTimedOut", reason });
export const orchestratorGarbage = (reason: string): OrchestratorError => ({ _tag: "OrchestratorGarbage", reason });
export const orchestratorRateLimited = (reason: string, retryAfterSeconds?: number): OrchestratorError =>
  retryAfterSeconds === undefined
    ? { _tag: "OrchestratorRateLimited", reason }
    : { _tag: "OrchestratorRateLimited", reason, retryAfterSeconds };

/** A one-line human description of any domain error, safe to show and log. */
export const describeError = (error: DomainError): string => {
  switch (error._tag) {
    case "NotFound":
      return `No connection with alias '${error.alias}'.`;
    case "AlreadyExists":
      return `A connection with alias '${error.alias}' already exists.`;
    case "VersionMismatch":
      return `Connection '${error.alias}' was changed meanwhile: it is at version ${error.version}, not the one expected.`;
    case "InvalidInput":
      return error.errors.map((e) => `${e.field}: ${e.message}`).join("; ");
    case "ValidationRefused":
      return `The orchestrator did not accept connection '${error.alias}': ${error.cause.reason}`;
    case "NotAPartner":
      return `Connection '${error.alias}' is not a partner connection.`;
    case "StorageFailure":
    case "OrchestratorRejected":
    case "OrchestratorFailed":
    case "OrchestratorUnreachable":
    case "OrchestratorTimedOut":
    case "OrchestratorRateLimited":
    case "OrchestratorGarbage":
      return error.reason;
  }
};
