import * as E from "fp-ts/lib/Either.js";
import { identity, pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Pool } from "pg";
import { aliasKey, storageFailure, type DomainError } from "@sdwan-connections/core";
import { describeSecretError, type Keyring } from "@sdwan-connections/secrets";
import { databaseFailure } from "./database-errors.js";

export interface RotationReport {
  /** Connections whose apiKey was re-sealed with the current master key. */
  readonly resealed: number;
  /** Connections changed by someone else meanwhile (already sealed anew by them). */
  readonly skipped: number;
}

/**
 * Re-seals every stored apiKey not sealed with the keyring's current key (run
 * after adding a new SDWAN_MASTER_KEY and listing the old one in
 * SDWAN_MASTER_KEY_PREVIOUS). Each row is replaced only if it still holds the
 * value read (compare-and-set), so a concurrent update is never overwritten.
 * Stops at the first key that does not open, naming its connection.
 */
export const rotateKeys = (pool: Pool, keyring: Keyring): TE.TaskEither<DomainError, RotationReport> =>
  pipe(
    TE.tryCatch(async (): Promise<E.Either<DomainError, RotationReport>> => {
      const { rows } = await pool.query<{ alias_key: string; alias: string; api_key: string }>(
        "select alias_key, alias, api_key from connections where api_key not like $1 order by alias_key",
        [`v1.${keyring.currentKeyId}.%`],
      );
      let resealed = 0;
      let skipped = 0;
      for (const row of rows) {
        if (!keyring.needsRotation(row.api_key)) continue;
        const opened = keyring.open(row.api_key, aliasKey(row.alias));
        if (E.isLeft(opened)) {
          return E.left(storageFailure(`Storage failure while rotating keys: the apiKey of connection '${row.alias}' cannot be opened: ${describeSecretError(opened.left)}.`));
        }
        const result = await pool.query("update connections set api_key = $3 where alias_key = $1 and api_key = $2", [
          row.alias_key,
          row.api_key,
          keyring.seal(opened.right, aliasKey(row.alias)),
        ]);
        if ((result.rowCount ?? 0) === 1) resealed += 1;
        else skipped += 1;
      }
      return E.right({ resealed, skipped });
    }, databaseFailure("rotating keys")),
    TE.chainEitherK(identity),
  );
