import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { ConnectionSummary } from "../domain/connection.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";

// The repository port's list cache rule: the same array only while nothing changed, so its sorted copy lives as long as it does.
const sortedLists = new WeakMap<readonly ConnectionSummary[], readonly ConnectionSummary[]>();

// Lower-cases each alias once, not once per comparison.
const sortByAliasIgnoringCase = (connections: readonly ConnectionSummary[]): readonly ConnectionSummary[] => {
  let sorted = sortedLists.get(connections);
  if (sorted === undefined) {
    sorted = connections
      .map((connection) => ({ key: connection.alias.toLowerCase(), connection }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map(({ connection }) => connection);
    sortedLists.set(connections, sorted);
  }
  return sorted;
};

/** Every connection's alias and URL, sorted by alias ignoring case. */
export const listConnections =
  (deps: { readonly repository: ConnectionRepository }) =>
  (): TE.TaskEither<DomainError, readonly ConnectionSummary[]> =>
    pipe(deps.repository.list(), TE.map(sortByAliasIgnoringCase));
