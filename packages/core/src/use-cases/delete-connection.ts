import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { AliasCodec } from "../domain/codecs.js";
import { decodeInput } from "../domain/decode.js";
import type { ExpectedVersions } from "../domain/connection.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionChanges } from "../ports/connection-changes.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";

export interface DeleteConnectionOptions {
  /** Remove it only while its version is one of these (HTTP If-Match). */
  readonly expectedVersions?: ExpectedVersions;
}

/** Removes a connection and announces it, so customers caches drop it. */
export const deleteConnection =
  (deps: { readonly repository: ConnectionRepository; readonly changes: ConnectionChanges }) =>
  (rawAlias: string, options: DeleteConnectionOptions = {}): TE.TaskEither<DomainError, void> =>
    pipe(
      TE.fromEither(decodeInput(AliasCodec, "alias")(rawAlias)),
      TE.tap((alias) => deps.repository.delete(alias, options.expectedVersions)),
      TE.flatMap((alias) => TE.fromTask(() => deps.changes.publish(alias))),
    );
