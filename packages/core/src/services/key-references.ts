import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { ApiKey } from "../domain/api-key.js";
import type { OrchestratorTarget, StoredConnection } from "../domain/connection.js";
import { aroundTargetCalls } from "../adapters/decorate-orchestrator.js";
import { orchestratorRejected } from "../domain/errors.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import type { KeyReader } from "./key-reader.js";

/** A reader for a service given none: every reference is refused, saying so. */
export const refusingKeyReader: KeyReader = {
  read: (reference) => TE.left(`${reference}: keys kept elsewhere are not configured in this service`),
};

/** The key a stored connection's reference names, read now; a key that cannot be read carries why (`ApiKey.problem`). */
export const withReferencedKey =
  (keys: KeyReader) =>
  (stored: StoredConnection): TE.TaskEither<never, StoredConnection> =>
    stored.apiKeyRef === undefined
      ? TE.right(stored)
      : TE.fromTask(async () => {
          const read = await keys.read(stored.apiKeyRef as string)();
          return { ...stored, apiKey: E.isRight(read) ? read.right : ApiKey.unreadable(read.left) };
        });

/**
 * The repository as core's use cases see it (SPEC §12): a connection whose key is kept elsewhere answers the key
 * read now from its reference, so validation, customers, health rounds, key checks and expiry all use the key as it
 * is at that moment; the store below keeps only the reference.
 */
export const readingKeyReferences = (repository: ConnectionRepository, keys: KeyReader): ConnectionRepository => ({
  ...repository,
  // Written out: every customers request reads its connection here (fp-ts's flatMap copies its arguments at each call).
  get: (alias) => async () => {
    const got = await repository.get(alias)();
    return E.isLeft(got) ? got : withReferencedKey(keys)(got.right)();
  },
  update: (alias, change, expected, entry) =>
    pipe(repository.update(alias, change, expected, entry), TE.flatMap(withReferencedKey(keys))),
});

// The refusal of a target whose key could not be read, or undefined to call the orchestrator.
const unread = (target: OrchestratorTarget) =>
  target.apiKey.problem === undefined ? undefined : TE.left(orchestratorRejected(target.apiKey.problem));

/**
 * The orchestrator, refusing a target whose key could not be read (`ApiKey.problem`) without calling it: no call is
 * ever made with a key that is not the connection's. The refusal is `OrchestratorRejected` with the reader's reason,
 * so such a connection shows as invalid, saying why.
 */
export const refusingUnreadKeys = (orchestrator: Orchestrator): Orchestrator =>
  aroundTargetCalls(orchestrator, (_call, target, made) => unread(target) ?? made);
