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
      return EXIT.validationRefused;
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
