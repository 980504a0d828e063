import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { AliasCodec } from "../domain/codecs.js";
import { decodeInput } from "../domain/decode.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionChanges } from "../ports/connection-changes.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";

/** Removes a connection and announces it, so customers caches drop it. */
export const deleteConnection =
  (deps: { readonly repository: ConnectionRepository; readonly changes: ConnectionChanges }) =>
  (rawAlias: string): TE.TaskEither<DomainError, void> =>
    pipe(
      TE.fromEither(decodeInput(AliasCodec, "alias")(rawAlias)),
      TE.tap((alias) => deps.repository.delete(alias)),
      TE.flatMap((alias) => TE.fromTask(() => deps.changes.publish(alias))),
    );
