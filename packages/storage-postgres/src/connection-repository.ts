import * as E from "fp-ts/lib/Either.js";
import { identity, pipe } from "fp-ts/lib/function.js";
import * as A from "fp-ts/lib/Array.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Pool, PoolClient } from "pg";
import {
  aliasKey,
  alreadyExists,
  DEFAULT_AUDIT_RETENTION,
  entryAsWritten,
  notFound,
  storageFailure,
  updateOf,
  versionMismatch,
  type Alias,
  type AuditEntry,
  type AuditRetention,
  type ConnectionRepository,
  type DomainError,
  type ExpectedVersions,
  type StoredConnection,
  type WrittenConnection,
} from "@sdwan-connections/core";
import type { Keyring } from "@sdwan-connections/secrets";
import { insertAuditEntry, pruneAuditTrail } from "./audit-log.js";
import { UNIQUE_VIOLATION, databaseFailure, hasSqlState } from "./database-errors.js";
import { withDedicatedClient } from "./dedicated-client.js";
import { rotateKeys } from "./rotate-keys.js";
import { decodeConnection, decodeSummary } from "./rows.js";

export interface PostgresConnectionRepositoryOptions {
  /** A pool the caller built (and ends); the schema must be migrated (`migrate(pool)`). */
  readonly pool: Pool;
  /** Seals apiKeys before they are stored and opens them when read. */
  readonly keyring: Keyring;
  /** The audit trail's retention (as its AuditLog's), applied after a write records an entry. */
  readonly auditRetention?: AuditRetention;
}

const COLUMNS =
  "alias, orchestrator_url, api_key, api_key_ref, version, api_key_set_at, api_key_expires_at, key_renewal";

/**
 * Runs `work`'s task in a transaction on a client of its own: committed when it answers a success, rolled
 * back when it answers a failure (a failure thrown, which rejects the task, is the database's: `what` names it).
 */
const inTransaction = <A>(
  pool: Pool,
  what: string,
  work: (client: PoolClient) => TE.TaskEither<DomainError, A>,
): TE.TaskEither<DomainError, A> =>
  pipe(
    TE.tryCatch(
      () =>
        withDedicatedClient(pool, async (client) => {
          await client.query("begin");
          const result = await work(client)();
          await client.query(E.isRight(result) ? "commit" : "rollback");
          return result;
        }),
      databaseFailure(what),
    ),
    TE.chainEitherK(identity),
  );

/**
 * Core's ConnectionRepository on PostgreSQL. Every statement is
 * parameterised; apiKeys are sealed (AES-256-GCM via @sdwan-connections/secrets,
 * associated data = alias key) before they leave the process. The database
 * enforces case-insensitive uniqueness (primary key on the lower-cased alias).
 * Each write is one transaction, with the audit entry it is given: the entry
 * commits with the change or not at all. An update locks its row, so
 * concurrent writers on any number of instances queue and never lose each
 * other's fields; versions come from one sequence (migration 6).
 */
export const createPostgresConnectionRepository = ({
  pool,
  keyring,
  auditRetention = DEFAULT_AUDIT_RETENTION,
}: PostgresConnectionRepositoryOptions): ConnectionRepository => {
  const decode = decodeConnection(keyring);

  const query = <R>(what: string, text: string, values: readonly unknown[] = []) =>
    TE.tryCatch(async () => (await pool.query(text, values as unknown[])).rows as R[], databaseFailure(what));

  // Why a conditional write touched no row: the connection is gone, or at another version.
  const missedWrite =
    (client: PoolClient, alias: Alias): TE.TaskEither<DomainError, never> =>
    async () => {
      const { rows } = await client.query<{ alias: string; version: number }>(
        "select alias, version from connections where alias_key = $1",
        [aliasKey(alias)],
      );
      const row = rows[0];
      return E.left(row === undefined ? notFound(alias) : versionMismatch(row.alias, row.version));
    };

  /**
   * A write in a transaction that also records `entry` when it succeeds (as `entryAsWritten`: `written` tells
   * whether the result changed anything and the connection's version it left or removed); then the retention
   * is applied (outside it).
   */
  const write = <A extends WrittenConnection>(
    what: string,
    entry: AuditEntry | undefined,
    work: (client: PoolClient) => TE.TaskEither<DomainError, A>,
    changed: (result: A) => boolean = () => true,
  ): TE.TaskEither<DomainError, A> =>
    pipe(
      inTransaction(pool, what, (client) => async () => {
        const result = await work(client)();
        if (E.isRight(result) && entry !== undefined)
          await insertAuditEntry(client, entryAsWritten(entry, changed(result.right), result.right));
        return result;
      }),
      // The entry is committed: a retention that could not be applied now is applied by the next one.
      TE.tap(() =>
        entry === undefined
          ? TE.right(undefined)
          : TE.fromTask(() => pruneAuditTrail(pool, auditRetention).catch(() => undefined)),
      ),
    );

  const locked =
    (
      client: PoolClient,
      alias: Alias,
      expected: ExpectedVersions | undefined,
    ): TE.TaskEither<DomainError, StoredConnection> =>
    async () => {
      const { rows } = await client.query(`select ${COLUMNS} from connections where alias_key = $1 for update`, [
        aliasKey(alias),
      ]);
      const row: unknown = rows[0];
      if (row === undefined) return E.left(notFound(alias));
      return pipe(
        decode(row),
        E.filterOrElse(
          (current) => expected === undefined || expected.includes(current.version),
          (current) => versionMismatch(current.alias, current.version),
        ),
      );
    };

  return {
    get: (alias) =>
      pipe(
        query<unknown>(`reading connection '${alias}'`, `select ${COLUMNS} from connections where alias_key = $1`, [
          aliasKey(alias),
        ]),
        TE.chainEitherK((rows) => (rows[0] === undefined ? E.left(notFound(alias)) : decode(rows[0]))),
      ),

    list: () =>
      pipe(
        query<unknown>(
          "listing connections",
          "select alias, orchestrator_url, api_key_ref from connections order by alias_key",
        ),
        TE.chainEitherK((rows) => A.traverse(E.Applicative)(decodeSummary)(rows)),
      ),

    insert: (connection, entry) => {
      const key = aliasKey(connection.alias);
      // A key kept elsewhere is never stored, only its reference (SPEC §12).
      const sealed = connection.apiKeyRef === undefined ? keyring.seal(connection.apiKey.reveal(), key) : null;
      return pipe(
        write(`adding connection '${connection.alias}'`, entry, (client) => async () => {
          try {
            const { rows } = await client.query<{ version: number }>(
              "insert into connections (alias_key, alias, orchestrator_url, api_key, api_key_ref, api_key_set_at, api_key_expires_at, key_renewal) values ($1, $2, $3, $4, $5, now(), $6, $7) returning version",
              [
                key,
                connection.alias,
                connection.orchestratorUrl,
                sealed,
                connection.apiKeyRef ?? null,
                connection.apiKeyExpiresAt ?? null,
                connection.keyRenewal ?? "off",
              ],
            );
            return E.right({
              alias: connection.alias,
              version: rows[0]?.version ?? 0,
              orchestratorUrl: connection.orchestratorUrl,
            });
          } catch (error) {
            if (!hasSqlState(error, UNIQUE_VIOLATION)) throw error;
            return E.left(alreadyExists(connection.alias)); // rolled back
          }
        }),
        TE.map(() => undefined),
      );
    },

    // The row is locked, then compared with the change opened, in memory: the same URL and the same key (sealed
    // twice, one key never gives the same bytes) write nothing and keep the version.
    update: (alias, change, expected, entry) =>
      pipe(
        write(
          `updating connection '${alias}'`,
          entry,
          (client) => async () => {
            const current = await locked(client, alias, expected)();
            if (E.isLeft(current)) return current;
            const { changed, newKey, newUrl, expiresAt, keyRenewal } = updateOf(current.right, change);
            if (!changed)
              return E.right({
                connection: current.right,
                changed: false,
                alias: current.right.alias,
                version: current.right.version,
                orchestratorUrl: current.right.orchestratorUrl,
              });
            const { rows } = await client.query(
              `update connections
                  set orchestrator_url = coalesce($2, orchestrator_url),
                      api_key = case when $5::text is not null then null else coalesce($3, api_key) end,
                      api_key_ref = case when $3::text is not null then null else coalesce($5, api_key_ref) end,
                      api_key_set_at = case when $3::text is null and $5::text is null then api_key_set_at else now() end,
                      api_key_expires_at = $4,
                      key_renewal = $6,
                      version = nextval('connection_versions'),
                      updated_at = now()
                where alias_key = $1
            returning ${COLUMNS}`,
              [
                aliasKey(alias),
                newUrl ? change.orchestratorUrl : null,
                newKey && change.apiKey !== undefined && change.apiKeyRef === undefined
                  ? keyring.seal(change.apiKey.reveal(), aliasKey(alias))
                  : null,
                expiresAt ?? null,
                newKey ? (change.apiKeyRef ?? null) : null,
                keyRenewal,
              ],
            );
            return E.map((connection: StoredConnection) => ({
              connection,
              changed: true,
              alias: connection.alias,
              version: connection.version,
              orchestratorUrl: connection.orchestratorUrl,
            }))(decode(rows[0]));
          },
          (written) => written.changed,
        ),
        TE.map((written) => written.connection),
      ),

    delete: (alias, expected, entry) =>
      pipe(
        write(`deleting connection '${alias}'`, entry, (client) => async () => {
          const { rows } = await client.query<{ alias: Alias; version: number; orchestrator_url: string }>(
            "delete from connections where alias_key = $1 and ($2::integer[] is null or version = any($2::integer[])) returning alias, version, orchestrator_url",
            [aliasKey(alias), expected ?? null],
          );
          const removed = rows[0];
          return removed === undefined
            ? missedWrite(client, alias)()
            : E.right({ alias: removed.alias, version: removed.version, orchestratorUrl: removed.orchestrator_url });
        }),
        TE.map(() => undefined),
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
            ? E.left(
                storageFailure("Storage failure while checking the database: PostgreSQL is read-only (a standby?)."),
              )
            : E.right(undefined),
        ),
      ),

    resealKeys: (entry) =>
      rotateKeys(pool, keyring, entry === undefined ? undefined : (client) => insertAuditEntry(client, entry)),
  };
};
