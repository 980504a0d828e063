import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionRepository, KeyRotationReport } from "../ports/connection-repository.js";

/**
 * After the operator sets a new master key (and lists the old one as
 * previous), re-seals every stored apiKey with it, so the old key can be
 * retired. Changes no connection's alias, URL or key.
 */
export const rotateMasterKey =
  (deps: { readonly repository: ConnectionRepository }) => (): TaskEither<DomainError, KeyRotationReport> =>
    deps.repository.resealKeys();
