import { storageFailure, type KeyRotationReport } from "@sdwan-connections/core";
import type { Keyring } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import { storedConnection, type StoredConnection } from "./file-format.js";
import type { Mutation } from "./mutation.js";

/**
 * Re-seals, with the keyring's current master key, every apiKey sealed with
 * an older one. All or nothing: a key that does not open fails it, naming its
 * connection, and nothing is re-sealed.
 */
export const resealKeys =
  (keyring: Keyring): Mutation<KeyRotationReport> =>
  (connections) => {
    const resealed: [string, StoredConnection][] = [];
    for (const [key, connection] of connections) {
      // A key kept elsewhere is not sealed here: nothing to re-seal.
      if (connection.sealedApiKey === undefined || !keyring.needsRotation(connection.sealedApiKey)) continue;
      const opened = keyring.open(connection.sealedApiKey, key);
      if (E.isLeft(opened))
        return E.left(
          storageFailure(
            `Cannot rotate the apiKey of '${connection.alias}': ${opened.left._tag}; nothing was re-sealed.`,
          ),
        );
      resealed.push([key, storedConnection({ ...connection, sealedApiKey: keyring.seal(opened.right, key) })]);
    }
    for (const [key, connection] of resealed) connections.set(key, connection);
    return E.right({ value: { rotated: resealed.length, total: connections.size }, changed: resealed.length > 0 });
  };
