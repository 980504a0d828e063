import {
  aliasKey,
  alreadyExists,
  ApiKey,
  notFound,
  storageFailure,
  type Connection,
  type ConnectionRepository,
  type ConnectionSummary,
  type DomainError,
} from "@sdwan-connections/core";
import { describeSecretError } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { ConnectionsFile } from "./connections-file.js";
import { storedConnection, type StoredConnection } from "./file-format.js";

/**
 * The ConnectionRepository port over an opened connections file. apiKeys are
 * sealed with the file's keyring, the lowercase alias bound in as associated
 * data, before they reach the file; they are opened only by `get` and `update`.
 */
export const createLowdbConnectionRepository = (file: ConnectionsFile): ConnectionRepository => {
  const { keyring } = file;

  const reveal = (key: string, stored: StoredConnection): E.Either<DomainError, Connection> => {
    const opened = keyring.open(stored.sealedApiKey, key);
    return E.isLeft(opened)
      ? E.left(storageFailure(`The stored apiKey of '${stored.alias}' cannot be decrypted: ${describeSecretError(opened.left)}.`))
      : E.right({ alias: stored.alias, orchestratorUrl: stored.orchestratorUrl, apiKey: ApiKey.unsafeFrom(opened.right) });
  };

  const get: ConnectionRepository["get"] = (alias) => async () => {
    const state = await file.read();
    if (E.isLeft(state)) return state;
    const key = aliasKey(alias);
    const stored = state.right.connections.get(key);
    return stored === undefined ? E.left(notFound(alias)) : reveal(key, stored);
  };

  // Listing is the most frequent request; its answer is rebuilt only when the file's state changed, and frozen,
  // as the port's list cache rule asks of a list handed out more than once.
  let listed: { readonly generation: number; readonly summaries: readonly ConnectionSummary[] } | undefined;
  const list: ConnectionRepository["list"] = () => async () => {
    const state = await file.read();
    if (E.isLeft(state)) return state;
    if (listed?.generation !== file.generation) {
      // From db.data, not `state`: the two may differ if another reader re-read the file meanwhile, and
      // db.data changes together with the generation.
      const summaries = Object.freeze([...file.db.data.connections.values()].map(({ alias, orchestratorUrl }) => Object.freeze({ alias, orchestratorUrl })));
      listed = { generation: file.generation, summaries };
    }
    return E.right(listed.summaries);
  };

  const insert: ConnectionRepository["insert"] = (connection) => () => {
    const key = aliasKey(connection.alias);
    // Sealed before queueing: the lock is held only for the in-memory change and the write.
    const added = storedConnection(connection.alias, connection.orchestratorUrl, keyring.seal(connection.apiKey.reveal(), key));
    return file.mutate((connections) => {
      const existing = connections.get(key);
      if (existing !== undefined) return E.left(alreadyExists(existing.alias));
      connections.set(key, added);
      return E.right({ value: undefined, changed: true });
    });
  };

  const update: ConnectionRepository["update"] = (alias, change) => () => {
    const key = aliasKey(alias);
    const sealed = change.apiKey === undefined ? undefined : keyring.seal(change.apiKey.reveal(), key);
    return file.mutate((connections): E.Either<DomainError, { value: Connection; changed: boolean }> => {
      const existing = connections.get(key);
      if (existing === undefined) return E.left(notFound(alias));
      const orchestratorUrl = change.orchestratorUrl ?? existing.orchestratorUrl;
      const apiKey = change.apiKey === undefined ? reveal(key, existing) : E.right({ apiKey: change.apiKey });
      if (E.isLeft(apiKey)) return apiKey;
      connections.set(key, storedConnection(existing.alias, orchestratorUrl, sealed ?? existing.sealedApiKey));
      return E.right({ value: { alias: existing.alias, orchestratorUrl, apiKey: apiKey.right.apiKey }, changed: true });
    });
  };

  const remove: ConnectionRepository["delete"] = (alias) => () =>
    file.mutate((connections) =>
      connections.delete(aliasKey(alias)) ? E.right({ value: undefined, changed: true }) : E.left(notFound(alias)),
    );

  const ping: ConnectionRepository["ping"] = (): TaskEither<DomainError, void> => () => file.ping();

  return { get, list, insert, update, delete: remove, ping, resealKeys: file.rotate };
};
