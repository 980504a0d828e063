import { pipe } from "fp-ts/lib/function.js";
import type * as T from "fp-ts/lib/Task.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { AliasCodec, type Alias } from "../domain/codecs.js";
import { decodeInput } from "../domain/decode.js";
import type { ExpectedVersions } from "../domain/connection.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionChanges } from "../ports/connection-changes.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";

export interface DeleteConnectionOptions {
  /** Remove it only while its version is one of these (HTTP If-Match). */
  readonly expectedVersions?: ExpectedVersions;
}

/** Removes a connection and announces it, so customers caches drop it; its health state goes with it. */
export const deleteConnection =
  (deps: {
    readonly repository: ConnectionRepository;
    readonly changes: ConnectionChanges;
    /** Removes the connection's health state; never fails (see `createHealthStates`). */
    readonly forgetHealth: (alias: Alias) => T.Task<void>;
  }) =>
  (rawAlias: string, options: DeleteConnectionOptions = {}): TE.TaskEither<DomainError, void> =>
    pipe(
      TE.fromEither(decodeInput(AliasCodec, "alias")(rawAlias)),
      TE.tap((alias) => deps.repository.delete(alias, options.expectedVersions)),
      TE.tap((alias) => TE.fromTask(deps.forgetHealth(alias))),
      TE.flatMap((alias) => TE.fromTask(() => deps.changes.publish(alias))),
    );
