import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import {
  aliasKey,
  alreadyExists,
  notFound,
  type Connection,
  type ConnectionRepository,
  type DomainError,
} from "../src/index.js";

/** The stored state of an in-memory repository; share one between repositories to model reopening a store. */
export type InMemoryConnectionStore = Map<string, Connection>;

export const createInMemoryConnectionStore = (): InMemoryConnectionStore => new Map();

// Work happens when the task runs, not when it is built, as with a real store.
const lazily =
  <A>(work: () => E.Either<DomainError, A>): TaskEither<DomainError, A> =>
  () =>
    Promise.resolve().then(work);

/**
 * A connection repository over a Map, for unit tests and for embedding core
 * without persistence. It passes the same contract suite as the real stores.
 */
export const createInMemoryConnectionRepository = (
  store: InMemoryConnectionStore = createInMemoryConnectionStore(),
): ConnectionRepository => ({
  get: (alias) => lazily(() => E.fromNullable(notFound(alias))(store.get(aliasKey(alias)))),
  list: () => lazily(() => E.right([...store.values()].map(({ alias, orchestratorUrl }) => ({ alias, orchestratorUrl })))),
  insert: (connection) =>
    lazily(() => {
      const existing = store.get(aliasKey(connection.alias));
      if (existing !== undefined) return E.left(alreadyExists(existing.alias));
      store.set(aliasKey(connection.alias), connection);
      return E.right(undefined);
    }),
  update: (alias, change) =>
    lazily(() => {
      const existing = store.get(aliasKey(alias));
      if (existing === undefined) return E.left(notFound(alias));
      const updated = { ...existing, ...change };
      store.set(aliasKey(alias), updated);
      return E.right(updated);
    }),
  delete: (alias) => lazily(() => (store.delete(aliasKey(alias)) ? E.right(undefined) : E.left(notFound(alias)))),
  ping: () => lazily(() => E.right(undefined)),
  // Nothing is sealed in memory: nothing to re-seal.
  resealKeys: () => lazily(() => E.right({ rotated: 0, total: store.size })),
});
