import {
  aliasKey,
  alreadyExists,
  ApiKey,
  declaredExpiryAfter,
  notFound,
  sameTime,
  storageFailure,
  versionMismatch,
  type ConnectionRepository,
  type ConnectionSummary,
  type DomainError,
  type ExpectedVersions,
  type StoredConnection as Connection,
} from "@sdwan-connections/core";
import { describeSecretError } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import type { ConnectionsFile } from "./connections-file.js";
import { storedConnection, type StoredConnection } from "./file-format.js";

/**
 * The ConnectionRepository port over an opened connections file. apiKeys are
 * sealed with the file's keyring, the lowercase alias bound in as associated
 * data, before they reach the file; they are opened only by `get` and `update`
 * (which compares the stored key with the one given, so a change to the same
 * key and URL writes nothing and keeps the version).
 */
export const createLowdbConnectionRepository = (file: ConnectionsFile): ConnectionRepository => {
  const { keyring } = file;
  // Each stored record opened once: a record is replaced by every change and every re-read of the file (versions
  // never repeat), so its connection is the same until then. A health check reads its connection three times
  // (check, still stored?, not deleted meanwhile?): AES-GCM opens and their buffers were about 5% of a round's
  // main-thread profile at 3,000 connections (issue 40). The plaintext lives no longer than its record, in the
  // process that holds the master key anyway.
  const revealedOnce = new WeakMap<StoredConnection, Connection>();

  const reveal = (key: string, stored: StoredConnection): E.Either<DomainError, Connection> => {
    const known = revealedOnce.get(stored);
    if (known !== undefined) return E.right(known);
    const revealed = open(key, stored);
    if (E.isRight(revealed)) revealedOnce.set(stored, revealed.right);
    return revealed;
  };

  const open = (key: string, stored: StoredConnection): E.Either<DomainError, Connection> => {
    const opened = keyring.open(stored.sealedApiKey, key);
    return E.isLeft(opened)
      ? E.left(
          storageFailure(
            `The stored apiKey of '${stored.alias}' cannot be decrypted: ${describeSecretError(opened.left)}.`,
          ),
        )
      : E.right({
          alias: stored.alias,
          orchestratorUrl: stored.orchestratorUrl,
          apiKey: ApiKey.unsafeFrom(opened.right),
          version: stored.version,
          apiKeySetAt: stored.apiKeySetAt === null ? null : new Date(stored.apiKeySetAt),
          ...(stored.apiKeyExpiresAt === undefined ? {} : { apiKeyExpiresAt: new Date(stored.apiKeyExpiresAt) }),
        });
  };

  // The stored connection, if it exists and is at an expected version; checked inside the mutation, so atomically.
  const current = (
    connections: ReadonlyMap<string, StoredConnection>,
    alias: string,
    expected: ExpectedVersions | undefined,
  ) => {
    const existing = connections.get(aliasKey(alias));
    if (existing === undefined) return E.left(notFound(alias));
    return expected === undefined || expected.includes(existing.version)
      ? E.right(existing)
      : E.left(versionMismatch(existing.alias, existing.version));
  };

  const get: ConnectionRepository["get"] = (alias) => async () => {
    const state = await file.read()();
    if (E.isLeft(state)) return state;
    const key = aliasKey(alias);
    const stored = state.right.connections.get(key);
    return stored === undefined ? E.left(notFound(alias)) : reveal(key, stored);
  };

  // Listing is the most frequent request; its answer is rebuilt only when the file's state changed, and frozen,
  // as the port's list cache rule asks of a list handed out more than once.
  let listed: { readonly generation: number; readonly summaries: readonly ConnectionSummary[] } | undefined;
  const list: ConnectionRepository["list"] = () => async () => {
    const state = await file.read()();
    if (E.isLeft(state)) return state;
    if (listed?.generation !== file.generation) {
      // From db.data, not `state`: the two may differ if another reader re-read the file meanwhile, and
      // db.data changes together with the generation.
      const summaries = Object.freeze(
        [...file.db.data.connections.values()].map(({ alias, orchestratorUrl }) =>
          Object.freeze({ alias, orchestratorUrl }),
        ),
      );
      listed = { generation: file.generation, summaries };
    }
    return E.right(listed.summaries);
  };

  const insert: ConnectionRepository["insert"] = (connection, entry) => () => {
    const key = aliasKey(connection.alias);
    // Sealed before queueing: the lock is held only for the in-memory change and the write.
    const sealedApiKey = keyring.seal(connection.apiKey.reveal(), key);
    const apiKeySetAt = new Date().toISOString();
    return file.mutate((connections, nextVersion) => {
      const existing = connections.get(key);
      if (existing !== undefined) return E.left(alreadyExists(existing.alias));
      const { alias, orchestratorUrl, apiKeyExpiresAt } = connection;
      const version = nextVersion();
      connections.set(
        key,
        storedConnection({
          alias,
          orchestratorUrl,
          sealedApiKey,
          version,
          apiKeySetAt,
          ...(apiKeyExpiresAt === undefined ? {} : { apiKeyExpiresAt: apiKeyExpiresAt.toISOString() }),
        }),
      );
      return E.right({ value: undefined, changed: true, version, orchestratorUrl });
    }, entry)();
  };

  const update: ConnectionRepository["update"] = (alias, change, expected, entry) => () => {
    const key = aliasKey(alias);
    const sealed = change.apiKey === undefined ? undefined : keyring.seal(change.apiKey.reveal(), key);
    return file.mutate(
      (
        connections,
        nextVersion,
      ): E.Either<DomainError, { value: Connection; changed: boolean; version: number; orchestratorUrl: string }> => {
        const existing = current(connections, alias, expected);
        if (E.isLeft(existing)) return existing;
        const stored = reveal(key, existing.right);
        if (E.isLeft(stored)) return stored;
        // The key is compared opened, in memory: sealed twice, the same key never gives the same bytes.
        const newKey = change.apiKey !== undefined && change.apiKey.reveal() !== stored.right.apiKey.reveal();
        const newUrl = change.orchestratorUrl !== undefined && change.orchestratorUrl !== stored.right.orchestratorUrl;
        const expiresAt = declaredExpiryAfter(stored.right, change, newKey);
        if (!newKey && !newUrl && sameTime(expiresAt, stored.right.apiKeyExpiresAt))
          return E.right({
            value: stored.right,
            changed: false,
            version: stored.right.version,
            orchestratorUrl: stored.right.orchestratorUrl,
          });
        const { apiKeyExpiresAt: _stored, ...kept } = existing.right;
        const updated = storedConnection({
          ...kept,
          ...(expiresAt === undefined ? {} : { apiKeyExpiresAt: expiresAt.toISOString() }),
          orchestratorUrl: change.orchestratorUrl ?? existing.right.orchestratorUrl,
          sealedApiKey: newKey && sealed !== undefined ? sealed : existing.right.sealedApiKey,
          version: nextVersion(),
          apiKeySetAt: newKey ? new Date().toISOString() : existing.right.apiKeySetAt,
        });
        connections.set(key, updated);
        const apiKeySetAt = updated.apiKeySetAt === null ? null : new Date(updated.apiKeySetAt);
        const { apiKeyExpiresAt: _before, ...unchanged } = stored.right;
        const value: Connection = {
          ...unchanged,
          orchestratorUrl: updated.orchestratorUrl,
          apiKey: change.apiKey ?? stored.right.apiKey,
          version: updated.version,
          apiKeySetAt,
          ...(expiresAt === undefined ? {} : { apiKeyExpiresAt: expiresAt }),
        };
        return E.right({ value, changed: true, version: updated.version, orchestratorUrl: updated.orchestratorUrl });
      },
      entry,
    )();
  };

  const remove: ConnectionRepository["delete"] = (alias, expected, entry) =>
    file.mutate(
      (connections) =>
        E.map((removed: { readonly version: number; readonly orchestratorUrl: string }) => ({
          value: void connections.delete(aliasKey(alias)),
          changed: true,
          version: removed.version,
          orchestratorUrl: removed.orchestratorUrl,
        }))(current(connections, alias, expected)),
      entry,
    );

  return { get, list, insert, update, delete: remove, ping: file.ping, resealKeys: file.rotate };
};
