import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import {
  aliasKey,
  alreadyExists,
  notFound,
  versionMismatch,
  type ConnectionRepository,
  type DomainError,
  type ExpectedVersions,
  type StoredConnection,
} from "../src/index.js";

/** The stored state of an in-memory repository; share one between repositories to model reopening a store. */
export type InMemoryConnectionStore = Map<string, StoredConnection>;

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
): ConnectionRepository => {
  // The stored connection, if it exists and is at an expected version.
  const current = (alias: string, expected: ExpectedVersions | undefined): E.Either<DomainError, StoredConnection> => {
    const existing = store.get(aliasKey(alias));
    if (existing === undefined) return E.left(notFound(alias));
    return expected === undefined || expected.includes(existing.version) ? E.right(existing) : E.left(versionMismatch(existing.alias, existing.version));
  };
  return {
    get: (alias) => lazily(() => E.fromNullable(notFound(alias))(store.get(aliasKey(alias)))),
    list: () => lazily(() => E.right([...store.values()].map(({ alias, orchestratorUrl }) => ({ alias, orchestratorUrl })))),
    insert: (connection) =>
      lazily(() => {
        const existing = store.get(aliasKey(connection.alias));
        if (existing !== undefined) return E.left(alreadyExists(existing.alias));
        store.set(aliasKey(connection.alias), { ...connection, version: 1, apiKeySetAt: new Date() });
        return E.right(undefined);
      }),
    update: (alias, change, expected) =>
      lazily(() =>
        E.map((existing: StoredConnection) => {
          const updated = {
            ...existing,
            ...change,
            version: existing.version + 1,
            apiKeySetAt: change.apiKey === undefined ? existing.apiKeySetAt : new Date(),
          };
          store.set(aliasKey(alias), updated);
          return updated;
        })(current(alias, expected)),
      ),
    delete: (alias, expected) => lazily(() => E.map(() => void store.delete(aliasKey(alias)))(current(alias, expected))),
    ping: () => lazily(() => E.right(undefined)),
    // Nothing is sealed in memory: nothing to re-seal.
    resealKeys: () => lazily(() => E.right({ rotated: 0, total: store.size })),
  };
};
