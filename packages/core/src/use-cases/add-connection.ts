import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { AddConnectionOutcome } from "../domain/answers.js";
import type { Alias } from "../domain/codecs.js";
import { alreadyExists, type DomainError } from "../domain/errors.js";
import { decodeInput } from "../domain/decode.js";
import { AddConnectionRequest } from "../domain/requests.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import { requireAccepted, requireAdmitted } from "./identify-target.js";
import type { KeyReader } from "../ports/key-files.js";
import type { Connection } from "../domain/connection.js";
import { readReferencedKey } from "./referenced-key.js";

const requireAliasFree = (repository: ConnectionRepository, alias: Alias): TE.TaskEither<DomainError, void> =>
  pipe(
    repository.get(alias),
    TE.matchE(
      (error) => (error._tag === "NotFound" ? TE.right<DomainError, void>(undefined) : TE.left(error)),
      (existing) => TE.left(alreadyExists(existing.alias)),
    ),
  );

export interface AddConnectionOptions {
  /** Validate against the orchestrator and check the alias is free, but store nothing. */
  readonly dryRun?: boolean;
  /** Store without asking the orchestrator. */
  readonly force?: boolean;
}

export type { AddConnectionOutcome };

/**
 * Adds a connection from an untrusted request body: decode, refuse a fenced
 * destination and a taken alias, have the orchestrator accept the key
 * (unless forced), then store.
 */
export const addConnection =
  (deps: {
    readonly repository: ConnectionRepository;
    readonly orchestrator: Orchestrator;
    /** Reads an `apiKeyRef`'s key (SPEC §12), which must read well even when forced. */
    readonly keys: KeyReader;
  }) =>
  (body: unknown, options: AddConnectionOptions = {}): TE.TaskEither<DomainError, AddConnectionOutcome> =>
    pipe(
      TE.fromEither(decodeInput(AddConnectionRequest, "body")(body)),
      TE.flatMap(({ apiKey, apiKeyRef, ...rest }): TE.TaskEither<DomainError, Connection> =>
        apiKeyRef === undefined
          ? TE.right({ ...rest, apiKey: apiKey as NonNullable<typeof apiKey> })
          : TE.map((read: Connection["apiKey"]) => ({ ...rest, apiKey: read, apiKeyRef }))(
              readReferencedKey(deps.keys, apiKeyRef),
            ),
      ),
      TE.tap((connection) => TE.fromEither(requireAdmitted(deps.orchestrator, connection.orchestratorUrl))),
      TE.tap((connection) => requireAliasFree(deps.repository, connection.alias)),
      TE.tap((connection) => requireAccepted(deps.orchestrator, connection.alias, options.force === true)(connection)),
      TE.flatMap((connection) =>
        options.dryRun === true
          ? TE.right<DomainError, AddConnectionOutcome>("dry-run")
          : pipe(deps.repository.insert(connection), TE.as<AddConnectionOutcome>("added")),
      ),
    );
