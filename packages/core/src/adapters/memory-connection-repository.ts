import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { entryAsWritten, type AuditEntry, type WrittenConnection } from "../domain/audit.js";
import { aliasKey } from "../domain/codecs.js";
import {
  aliasFreeIn,
  atExpectedVersion,
  REFERENCED_KEY_NOT_READ,
  updateOf,
  type Connection,
  type StoredConnection,
} from "../domain/connection.js";
import { notFound, type DomainError } from "../domain/errors.js";
import { createInMemoryAuditLog } from "./memory-audit-log.js";
import type { AuditLog } from "../ports/audit-log.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";

/** The stored state of an in-memory repository; share one between repositories to model reopening a store. */
export interface InMemoryConnectionStore {
  readonly connections: Map<string, StoredConnection>;
  /** The last version given to a write: versions grow across the store, so a re-added alias never repeats one. */
  lastVersion: number;
  /** The store's audit trail, where writes record the entries they are given. */
  readonly audit: AuditLog;
}

export const createInMemoryConnectionStore = (audit: AuditLog = createInMemoryAuditLog()): InMemoryConnectionStore => ({
  connections: new Map(),
  lastVersion: 0,
  audit,
});

// Each store's writes run one at a time (a write waits for its entry to be recorded between its check and its change).
const writesOf = new WeakMap<InMemoryConnectionStore, Promise<unknown>>();

/**
 * A write, run when the task runs (not when it is built, as with a real store), after the store's earlier
 * writes: `check` finds what to change or fails, the entry is recorded, then `apply` changes the Map. Nothing
 * can fail after the entry is recorded, so the two are one step; an entry that cannot be recorded fails the
 * write before any change. `changes` tells whether the checked write will change anything, `version` the
 * connection's version it will leave or remove (see `entryAsWritten`): writes run one at a time, so the next
 * version is known at the check.
 */
const write =
  <S, A>(
    store: InMemoryConnectionStore,
    entry: AuditEntry | undefined,
    check: () => E.Either<DomainError, S>,
    apply: (checked: S) => A,
    changes: (checked: S) => boolean = () => true,
    written: (checked: S) => WrittenConnection | undefined = () => undefined,
  ): TaskEither<DomainError, A> =>
  () => {
    const run: TaskEither<DomainError, A> = async () => {
      const checked = check();
      if (E.isLeft(checked)) return checked;
      if (entry !== undefined) {
        const recorded = await store.audit.record(
          entryAsWritten(entry, changes(checked.right), written(checked.right)),
        )();
        if (E.isLeft(recorded)) return recorded;
      }
      return E.right(apply(checked.right));
    };
    const done = (writesOf.get(store) ?? Promise.resolve()).then(run, run);
    writesOf.set(store, done);
    return done;
  };

// What is kept of a connection: a reference in place of its key (SPEC §12), never the key read from it.
const keptOf = <C extends Connection>(connection: C): C =>
  connection.apiKeyRef === undefined ? connection : { ...connection, apiKey: REFERENCED_KEY_NOT_READ };

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
  const { connections } = store;
  const nextVersion = () => (store.lastVersion += 1);
  return {
    get: (alias) => lazily(() => E.fromNullable(notFound(alias))(connections.get(aliasKey(alias)))),
    list: () =>
      lazily(() =>
        E.right(
          [...connections.values()].map(({ alias, orchestratorUrl, apiKeyRef }) =>
            apiKeyRef === undefined ? { alias, orchestratorUrl } : { alias, orchestratorUrl, apiKeyRef },
          ),
        ),
      ),
    insert: (connection, entry) =>
      write(
        store,
        entry,
        () => aliasFreeIn(connections, connection.alias),
        () =>
          void connections.set(aliasKey(connection.alias), {
            ...keptOf(connection),
            keyRenewal: connection.keyRenewal ?? "off",
            version: nextVersion(),
            apiKeySetAt: new Date(),
          }),
        undefined,
        () => ({
          alias: connection.alias,
          version: store.lastVersion + 1,
          orchestratorUrl: connection.orchestratorUrl,
        }),
      ),
    update: (alias, change, expected, entry) =>
      write(
        store,
        entry,
        () => atExpectedVersion(connections, alias, expected),
        (existing) => {
          const { changed, newKey, expiresAt, apiKeyRef } = updateOf(existing, change);
          if (!changed) return existing;
          const { apiKeyExpiresAt: _given, apiKeyRef: _ref, ...rest } = { ...existing, ...change };
          const updated: StoredConnection = {
            ...keptOf({ ...rest, ...(apiKeyRef === undefined ? {} : { apiKeyRef }) }),
            ...(expiresAt === undefined ? {} : { apiKeyExpiresAt: expiresAt }),
            version: nextVersion(),
            apiKeySetAt: newKey ? new Date() : existing.apiKeySetAt,
          };
          connections.set(aliasKey(alias), updated);
          return updated;
        },
        (existing) => updateOf(existing, change).changed,
        (existing) => ({
          alias: existing.alias,
          version: updateOf(existing, change).changed ? store.lastVersion + 1 : existing.version,
          orchestratorUrl: change.orchestratorUrl ?? existing.orchestratorUrl,
        }),
      ),
    delete: (alias, expected, entry) =>
      write(
        store,
        entry,
        () => atExpectedVersion(connections, alias, expected),
        () => void connections.delete(aliasKey(alias)),
        undefined,
        (existing) => existing,
      ),
    ping: () => lazily(() => E.right(undefined)),
    // Nothing is sealed in memory: nothing to re-seal.
    resealKeys: (entry) =>
      write(
        store,
        entry,
        () => E.right(undefined),
        () => ({ rotated: 0, total: connections.size }),
      ),
  };
};
