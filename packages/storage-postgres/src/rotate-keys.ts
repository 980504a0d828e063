import * as E from "fp-ts/lib/Either.js";
import { identity, pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Pool, PoolClient } from "pg";
import { aliasKey, storageFailure, type DomainError, type KeyRotationReport } from "@sdwan-connections/core";
import { describeSecretError, type Keyring } from "@sdwan-connections/secrets";
import { databaseFailure } from "./database-errors.js";
import { withDedicatedClient } from "./dedicated-client.js";

/**
 * Re-seals every stored apiKey not sealed with the keyring's current key (run
 * after setting a new SDWAN_MASTER_KEY and listing the old one in
 * SDWAN_MASTER_KEY_PREVIOUS). All or nothing: one transaction, rows locked
 * (`for update`) so a concurrent update waits instead of being overwritten; a
 * key that does not open rolls everything back, naming its connection.
 * `alongside` runs in the same transaction before it commits (the rotation's
 * audit entry).
 */
export const rotateKeys = (
  pool: Pool,
  keyring: Keyring,
  alongside?: (client: PoolClient) => Promise<void>,
): TE.TaskEither<DomainError, KeyRotationReport> => {
  // On the client of its own; a database error rejects the task, and the wrapper below names it.
  const reseal =
    (client: PoolClient): TE.TaskEither<DomainError, KeyRotationReport> =>
    async () => {
      await client.query("begin");
      const { rows } = await client.query<{ alias_key: string; alias: string; api_key: string }>(
        "select alias_key, alias, api_key from connections where api_key is not null order by alias_key for update",
      );
      let rotated = 0;
      for (const row of rows) {
        if (!keyring.needsRotation(row.api_key)) continue;
        const opened = keyring.open(row.api_key, aliasKey(row.alias));
        if (E.isLeft(opened)) {
          await client.query("rollback");
          return E.left(
            storageFailure(
              `Storage failure while rotating keys: the apiKey of connection '${row.alias}' cannot be opened: ${describeSecretError(opened.left)}; nothing was re-sealed.`,
            ),
          );
        }
        await client.query("update connections set api_key = $2, updated_at = now() where alias_key = $1", [
          row.alias_key,
          keyring.seal(opened.right, aliasKey(row.alias)),
        ]);
        rotated += 1;
      }
      await alongside?.(client);
      await client.query("commit");
      return E.right({ rotated, total: rows.length });
    };
  return pipe(
    TE.tryCatch(() => withDedicatedClient(pool, (client) => reseal(client)()), databaseFailure("rotating keys")),
    TE.chainEitherK(identity),
  );
};

/**
 * Checks at start that every stored apiKey was sealed with a key the keyring
 * holds, so a wrong or missing SDWAN_MASTER_KEY stops the start with one clear
 * line instead of failing reads one connection at a time.
 */
export const verifyMasterKeys = (pool: Pool, keyring: Keyring): TE.TaskEither<DomainError, void> =>
  pipe(
    TE.tryCatch(
      async () =>
        (
          await pool.query<{ key_id: string }>(
            "select distinct split_part(api_key, '.', 2) as key_id from connections where api_key is not null order by 1",
          )
        ).rows.map((row) => row.key_id),
      databaseFailure("checking the master keys"),
    ),
    TE.chainEitherK((stored) => {
      const unknown = stored.filter((keyId) => !keyring.keyIds.includes(keyId));
      return unknown.length === 0
        ? E.right(undefined)
        : E.left(
            storageFailure(
              `The database holds apiKeys sealed with master key id(s) ${unknown.join(", ")}, but the configured key id(s) are ` +
                `${keyring.keyIds.join(", ")}: wrong master key. Set SDWAN_MASTER_KEY to the key the connections were stored with, ` +
                "or list it in SDWAN_MASTER_KEY_PREVIOUS.",
            ),
          );
    }),
  );
