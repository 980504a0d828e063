import {
  aliasFreeIn,
  aliasKey,
  ApiKey,
  atExpectedVersion,
  notFound,
  REFERENCED_KEY_NOT_READ,
  storageFailure,
  updateOf,
  type ConnectionRepository,
  type ConnectionSummary,
  type DomainError,
  type StoredConnection as Connection,
  type WrittenConnection,
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
    // A key kept elsewhere is not here: core reads its reference (SPEC §12).
    const opened = stored.sealedApiKey === undefined ? E.right("") : keyring.open(stored.sealedApiKey, key);
    return E.isLeft(opened)
      ? E.left(
          storageFailure(
            `The stored apiKey of '${stored.alias}' cannot be decrypted: ${describeSecretError(opened.left)}.`,
          ),
        )
      : E.right({
          alias: stored.alias,
          orchestratorUrl: stored.orchestratorUrl,
          apiKey: stored.apiKeyRef === undefined ? ApiKey.unsafeFrom(opened.right) : REFERENCED_KEY_NOT_READ,
          ...(stored.apiKeyRef === undefined ? {} : { apiKeyRef: stored.apiKeyRef }),
          version: stored.version,
          apiKeySetAt: stored.apiKeySetAt === null ? null : new Date(stored.apiKeySetAt),
          ...(stored.apiKeyExpiresAt === undefined ? {} : { apiKeyExpiresAt: new Date(stored.apiKeyExpiresAt) }),
          keyRenewal: stored.keyRenewal ?? "off",
        });
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
        [...file.db.data.connections.values()].map(({ alias, orchestratorUrl, apiKeyRef }) =>
          Object.freeze(apiKeyRef === undefined ? { alias, orchestratorUrl } : { alias, orchestratorUrl, apiKeyRef }),
        ),
      );
      listed = { generation: file.generation, summaries };
    }
    return E.right(listed.summaries);
  };

  const insert: ConnectionRepository["insert"] = (connection, entry) => () => {
    const key = aliasKey(connection.alias);
    // Sealed before queueing: the lock is held only for the in-memory change and the write.
    // A key kept elsewhere is never stored, only its reference (SPEC §12).
    const sealedApiKey = connection.apiKeyRef === undefined ? keyring.seal(connection.apiKey.reveal(), key) : undefined;
    const apiKeySetAt = new Date().toISOString();
    return file.mutate((connections, nextVersion) => {
      const free = aliasFreeIn(connections, key);
      if (E.isLeft(free)) return free;
      const { alias, orchestratorUrl, apiKeyExpiresAt, keyRenewal, apiKeyRef } = connection;
      const version = nextVersion();
      connections.set(
        key,
        storedConnection({
          alias,
          orchestratorUrl,
          ...(apiKeyRef === undefined ? { sealedApiKey } : { apiKeyRef }),
          version,
          apiKeySetAt,
          ...(apiKeyExpiresAt === undefined ? {} : { apiKeyExpiresAt: apiKeyExpiresAt.toISOString() }),
          ...(keyRenewal === "auto" ? { keyRenewal } : {}),
        }),
      );
      return E.right({ value: undefined, changed: true, written: { alias, version, orchestratorUrl } });
    }, entry)();
  };

  const update: ConnectionRepository["update"] = (alias, change, expected, entry) => () => {
    const key = aliasKey(alias);
    const sealed =
      change.apiKey === undefined || change.apiKeyRef !== undefined
        ? undefined
        : keyring.seal(change.apiKey.reveal(), key);
    return file.mutate(
      (
        connections,
        nextVersion,
      ): E.Either<DomainError, { value: Connection; changed: boolean; written: WrittenConnection }> => {
        // Checked inside the mutation, so atomically.
        const existing = atExpectedVersion(connections, alias, expected);
        if (E.isLeft(existing)) return existing;
        const stored = reveal(key, existing.right);
        if (E.isLeft(stored)) return stored;
        // The key is compared opened, in memory: sealed twice, the same key never gives the same bytes.
        const { changed, newKey, expiresAt, keyRenewal, apiKeyRef } = updateOf(stored.right, change);
        if (!changed) return E.right({ value: stored.right, changed: false, written: stored.right });
        const {
          apiKeyExpiresAt: _stored,
          keyRenewal: _renewal,
          sealedApiKey: _sealed,
          apiKeyRef: _ref,
          ...kept
        } = existing.right;
        const sealedApiKey = newKey && sealed !== undefined ? sealed : existing.right.sealedApiKey;
        const updated = storedConnection({
          ...kept,
          ...(keyRenewal === "auto" ? { keyRenewal } : {}),
          ...(expiresAt === undefined ? {} : { apiKeyExpiresAt: expiresAt.toISOString() }),
          orchestratorUrl: change.orchestratorUrl ?? existing.right.orchestratorUrl,
          ...(apiKeyRef === undefined ? { sealedApiKey } : { apiKeyRef }),
          version: nextVersion(),
          apiKeySetAt: newKey ? new Date().toISOString() : existing.right.apiKeySetAt,
        });
        connections.set(key, updated);
        const apiKeySetAt = updated.apiKeySetAt === null ? null : new Date(updated.apiKeySetAt);
        const { apiKeyExpiresAt: _before, apiKeyRef: _was, ...unchanged } = stored.right;
        const value: Connection = {
          ...unchanged,
          orchestratorUrl: updated.orchestratorUrl,
          apiKey: apiKeyRef !== undefined ? REFERENCED_KEY_NOT_READ : (change.apiKey ?? stored.right.apiKey),
          ...(apiKeyRef === undefined ? {} : { apiKeyRef }),
          version: updated.version,
          apiKeySetAt,
          keyRenewal,
          ...(expiresAt === undefined ? {} : { apiKeyExpiresAt: expiresAt }),
        };
        return E.right({ value, changed: true, written: updated });
      },
      entry,
    )();
  };

  const remove: ConnectionRepository["delete"] = (alias, expected, entry) =>
    file.mutate(
      (connections) =>
        E.map((removed: WrittenConnection) => ({
          value: void connections.delete(aliasKey(alias)),
          changed: true,
          written: removed,
        }))(atExpectedVersion(connections, alias, expected)),
      entry,
    );

  return { get, list, insert, update, delete: remove, ping: file.ping, resealKeys: file.rotate };
};
