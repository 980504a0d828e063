import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { ConnectionSummary } from "../domain/connection.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";

const byAliasIgnoringCase = (a: ConnectionSummary, b: ConnectionSummary): number => {
  const left = a.alias.toLowerCase();
  const right = b.alias.toLowerCase();
  return left < right ? -1 : left > right ? 1 : 0;
};

/** Every connection's alias and URL, sorted by alias ignoring case. */
export const listConnections =
  (deps: { readonly repository: ConnectionRepository }) => (): TE.TaskEither<DomainError, readonly ConnectionSummary[]> =>
    pipe(
      deps.repository.list(),
      TE.map((connections) => [...connections].sort(byAliasIgnoringCase)),
    );
