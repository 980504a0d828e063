import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as A from "fp-ts/lib/Array.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Pool } from "pg";
import {
  aliasKey,
  alreadyExists,
  notFound,
  storageFailure,
  versionMismatch,
  type Alias,
  type ConnectionRepository,
  type DomainError,
} from "@sdwan-connections/core";
import type { Keyring } from "@sdwan-connections/secrets";
import { UNIQUE_VIOLATION, databaseFailure, hasSqlState } from "./database-errors.js";
import { rotateKeys } from "./rotate-keys.js";
import { decodeConnection, decodeSummary } from "./rows.js";

export interface PostgresConnectionRepositoryOptions {
  /** A pool the caller built (and ends); the schema must be migrated (`migrate(pool)`). */
  readonly pool: Pool;
  /** Seals apiKeys before they are stored and opens them when read. */
  readonly keyring: Keyring;
}

const COLUMNS = "alias, orchestrator_url, api_key, version, api_key_set_at";

/**
 * Core's ConnectionRepository on PostgreSQL. Every statement is
 * parameterised; apiKeys are sealed (AES-256-GCM via @sdwan-connections/secrets,
 * associated data = alias key) before they leave the process. The database
 * enforces case-insensitive uniqueness (primary key on the lower-cased alias),
 * and an update is one UPDATE statement, so concurrent writers on any number
 * of instances never lose each other's fields.
 */
export const createPostgresConnectionRepository = ({ pool, keyring }: PostgresConnectionRepositoryOptions): ConnectionRepository => {
  const decode = decodeConnection(keyring);

  const query = <R>(what: string, text: string, values: readonly unknown[] = []) =>
    TE.tryCatch(async () => (await pool.query(text, values as unknown[])).rows as R[], databaseFailure(what));

  // Why a conditional write touched no row: the connection is gone, or at another version.
  const missedWrite = (alias: Alias) =>
    pipe(
      query<{ alias: string; version: number }>(`reading connection '${alias}'`, "select alias, version from connections where alias_key = $1", [aliasKey(alias)]),
      TE.flatMap(([row]) => TE.left(row === undefined ? notFound(alias) : versionMismatch(row.alias, row.version))),
    );

  return {
    get: (alias) =>
      pipe(
        query<unknown>(`reading connection '${alias}'`, `select ${COLUMNS} from connections where alias_key = $1`, [aliasKey(alias)]),
        TE.chainEitherK((rows) => (rows[0] === undefined ? E.left(notFound(alias)) : decode(rows[0]))),
      ),

    list: () =>
      pipe(
        query<unknown>("listing connections", "select alias, orchestrator_url from connections order by alias_key"),
        TE.chainEitherK((rows) => A.traverse(E.Applicative)(decodeSummary)(rows)),
      ),

    insert: (connection) =>
      pipe(
        TE.tryCatch(
          async () => {
            const key = aliasKey(connection.alias);
            await pool.query("insert into connections (alias_key, alias, orchestrator_url, api_key, api_key_set_at) values ($1, $2, $3, $4, now())", [
              key,
              connection.alias,
              connection.orchestratorUrl,
              keyring.seal(connection.apiKey.reveal(), key),
            ]);
          },
          (error): DomainError =>
            hasSqlState(error, UNIQUE_VIOLATION)
              ? alreadyExists(connection.alias)
              : databaseFailure(`adding connection '${connection.alias}'`)(error),
        ),
      ),

    update: (alias, change, expected) => {
      const key = aliasKey(alias);
      return pipe(
        TE.fromIO(() => (change.apiKey === undefined ? null : keyring.seal(change.apiKey.reveal(), key))),
        // One statement: the row lock makes concurrent updates queue, each keeps the fields it was not given, and
        // a queued one re-checks the expected version against the row as the one before it left it.
        TE.chain((sealed) =>
          query<unknown>(
            `updating connection '${alias}'`,
            `update connections
                set orchestrator_url = coalesce($2, orchestrator_url),
                    api_key = coalesce($3, api_key),
                    api_key_set_at = case when $3::text is null then api_key_set_at else now() end,
                    version = version + 1,
                    updated_at = now()
              where alias_key = $1 and ($4::integer[] is null or version = any($4::integer[]))
          returning ${COLUMNS}`,
            [key, change.orchestratorUrl ?? null, sealed, expected ?? null],
          ),
        ),
        TE.flatMap((rows) => (rows[0] === undefined ? missedWrite(alias) : TE.fromEither(decode(rows[0])))),
      );
    },

    delete: (alias, expected) =>
      pipe(
        TE.tryCatch(
          async () =>
            (
              await pool.query("delete from connections where alias_key = $1 and ($2::integer[] is null or version = any($2::integer[]))", [
                aliasKey(alias),
                expected ?? null,
              ])
            ).rowCount ?? 0,
          databaseFailure(`deleting connection '${alias}'`),
        ),
        TE.flatMap((count) => (count === 0 ? missedWrite(alias) : TE.right(undefined))),
      ),

    // Reads the table (so a missing schema shows) and checks the server would accept a write.
    ping: () =>
      pipe(
        query<{ in_recovery: boolean; read_only: string }>(
          "checking the database",
          `select pg_is_in_recovery() as in_recovery,
                  current_setting('transaction_read_only') as read_only,
                  exists (select 1 from connections) as reachable`,
        ),
        TE.chainEitherK(([row]) =>
          row === undefined || row.in_recovery || row.read_only === "on"
            ? E.left(storageFailure("Storage failure while checking the database: PostgreSQL is read-only (a standby?)."))
            : E.right(undefined),
        ),
      ),

    resealKeys: () => rotateKeys(pool, keyring),
  };
};
