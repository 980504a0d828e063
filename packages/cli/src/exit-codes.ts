import type { DomainError } from "@sdwan-connections/core";

/** Exit codes, one per kind of failure, so scripts can tell them apart. */
export const EXIT = {
  ok: 0,
  /** A usage error, invalid input, or a configuration that stops the start. */
  usage: 2,
  notFound: 3,
  conflict: 4,
  validationRefused: 5,
  orchestrator: 6,
  storage: 7,
  /** A command that reads found no store where it looked (it never creates one). */
  noStore: 8,
  /** key-check: the key given is not the stored one. */
  keyMismatch: 9,
  /** webhooks ping: the receiver did not take the ping (no answer, or not a 2xx). */
  pingNotTaken: 10,
  /** Stopped by a signal before it finished (128 + SIGINT's number; SIGTERM gives 143). */
  interrupted: 130,
} as const;

export const exitCodeOf = (error: DomainError): number => {
  switch (error._tag) {
    case "InvalidInput":
      return EXIT.usage;
    case "NotFound":
      return EXIT.notFound;
    case "AlreadyExists":
    case "NotAPartner":
    case "VersionMismatch":
      return EXIT.conflict;
    case "ValidationRefused":
      // Refused by the orchestrator (5), or the orchestrator could not be asked (6), as `validate` tells them.
      return error.cause._tag === "OrchestratorRejected" ? EXIT.validationRefused : EXIT.orchestrator;
    case "OrchestratorRejected":
    case "OrchestratorFailed":
    case "OrchestratorUnreachable":
    case "OrchestratorTimedOut":
    case "OrchestratorRateLimited":
    case "OrchestratorGarbage":
      return EXIT.orchestrator;
    case "StorageFailure":
      return EXIT.storage;
  }
};
