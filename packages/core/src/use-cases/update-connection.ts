import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { UpdateConnectionOutcome } from "../domain/answers.js";
import { AliasCodec, aliasKey, type Alias } from "../domain/codecs.js";
import { REFERENCE_NOT_RENEWED, updateOf, type ConnectionChange, type ExpectedVersions } from "../domain/connection.js";
import { decodeInput } from "../domain/decode.js";
import { invalidInput, versionMismatch, type DomainError } from "../domain/errors.js";
import { UpdateConnectionRequest } from "../domain/requests.js";
import type { ConnectionChanges } from "../ports/connection-changes.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import { requireAccepted, requireAdmitted } from "./identify-target.js";
import { readReferencedKey } from "./referenced-key.js";
import type { KeyReader } from "../ports/key-files.js";

export interface UpdateConnectionOptions {
  /** Validate the connection as it would be after the change, but store nothing. */
  readonly dryRun?: boolean;
  /** Store without asking the orchestrator. */
  readonly force?: boolean;
  /** Change it only while its version is one of these (HTTP If-Match). */
  readonly expectedVersions?: ExpectedVersions;
}

const decodeChange = (alias: Alias, body: unknown): E.Either<DomainError, ConnectionChange> =>
  pipe(
    decodeInput(UpdateConnectionRequest, "body")(body),
    E.flatMap(({ alias: bodyAlias, orchestratorUrl, apiKey, apiKeyExpiresAt, keyRenewal, apiKeyRef }) =>
      bodyAlias !== undefined && aliasKey(bodyAlias) !== aliasKey(alias)
        ? E.left(invalidInput([{ field: "alias", message: "must equal the alias in the path, or be left out" }]))
        : E.right({
            ...(orchestratorUrl === undefined ? {} : { orchestratorUrl }),
            ...(apiKey === undefined ? {} : { apiKey }),
            ...(apiKeyExpiresAt === undefined ? {} : { apiKeyExpiresAt }),
            ...(keyRenewal === undefined ? {} : { keyRenewal }),
            ...(apiKeyRef === undefined ? {} : { apiKeyRef }),
          }),
    ),
  );

export type { UpdateConnectionOutcome };

/**
 * Changes the URL and/or key of a connection. The connection as it would be
 * after the change must be accepted by the orchestrator (unless forced);
 * then the change is stored and announced, so customers caches drop it. A
 * change that changes nothing keeps the version and answers `unchanged`, and
 * is announced all the same: an update drops the cached customers (SPEC §4).
 * With expected versions, it changes nothing unless the stored version is
 * one of them, from the first read to the write. A dry run stops before
 * the write.
 */
export const updateConnection =
  (deps: {
    readonly repository: ConnectionRepository;
    readonly orchestrator: Orchestrator;
    readonly changes: ConnectionChanges;
    /** Reads an `apiKeyRef`'s key (SPEC §12), which must read well even when forced. */
    readonly keys: KeyReader;
  }) =>
  (
    rawAlias: string,
    body: unknown,
    options: UpdateConnectionOptions = {},
  ): TE.TaskEither<DomainError, UpdateConnectionOutcome> =>
    pipe(
      TE.fromEither(decodeInput(AliasCodec, "alias")(rawAlias)),
      TE.flatMap((alias) =>
        pipe(
          TE.fromEither(decodeChange(alias, body)),
          TE.tap((change) =>
            TE.fromEither(
              change.orchestratorUrl === undefined
                ? E.right(undefined)
                : requireAdmitted(deps.orchestrator, change.orchestratorUrl),
            ),
          ),
          TE.flatMap((change) =>
            pipe(
              deps.repository.get(alias),
              // Fails before asking the orchestrator; the store checks again, atomically, when it writes.
              TE.filterOrElse(
                (current) => options.expectedVersions?.includes(current.version) ?? true,
                (current) => versionMismatch(current.alias, current.version),
              ),
              // Renewal on (asked now, or kept from before) for a key that is, or now goes, elsewhere: refused, never
              // turned off without a word (the body alone is the codec's).
              TE.filterOrElseW(
                (current) => {
                  const after = updateOf(current, change);
                  return after.keyRenewal !== "auto" || after.apiKeyRef === undefined;
                },
                () => invalidInput([{ field: "keyRenewal", message: REFERENCE_NOT_RENEWED }]),
              ),
              // A reference's key is read now: it must read well, and the orchestrator must accept the key read.
              TE.tap((current) =>
                pipe(
                  change.apiKeyRef === undefined
                    ? TE.right(change.apiKey ?? current.apiKey)
                    : readReferencedKey(deps.keys, change.apiKeyRef),
                  TE.flatMap((apiKey) =>
                    requireAccepted(
                      deps.orchestrator,
                      alias,
                      options.force === true,
                    )({ ...current, ...change, apiKey }),
                  ),
                ),
              ),
              TE.map((current) => ({ change, readVersion: current.version })),
            ),
          ),
          TE.flatMap(({ change, readVersion }) =>
            options.dryRun === true
              ? TE.right<DomainError, UpdateConnectionOutcome>("dry-run")
              : pipe(
                  deps.repository.update(alias, change, options.expectedVersions),
                  TE.tap((updated) => TE.fromTask(() => deps.changes.publish(updated.alias))),
                  // The version read is still the stored one: the change changed nothing.
                  TE.map((updated): UpdateConnectionOutcome =>
                    updated.version === readVersion ? "unchanged" : "updated",
                  ),
                ),
          ),
        ),
      ),
    );
