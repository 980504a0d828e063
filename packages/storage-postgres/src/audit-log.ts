import * as A from "fp-ts/lib/Array.js";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import type { Pool, PoolClient } from "pg";
import {
  aliasKey,
  AuditEntryProps,
  DEFAULT_AUDIT_RETENTION,
  storageFailure,
  toFieldErrors,
  type AuditEntry,
  type AuditLog,
  type AuditRetention,
  type DomainError,
} from "@sdwan-connections/core";
import { databaseFailure } from "./database-errors.js";
import { DateCodec } from "./rows.js";

export interface PostgresAuditLogOptions {
  /** A migrated pool (`migrate(pool)`), as the repository's. */
  readonly pool: Pool;
  readonly retention?: AuditRetention;
}


/** A row of `audit_entries`; rows are outside input, so they are decoded. */
const AuditRow = t.type({ ...AuditEntryProps, at: DateCodec, request_id: t.union([t.string, t.null]) });

const decodeRow = (row: unknown): E.Either<DomainError, AuditEntry> =>
  pipe(
    AuditRow.decode(row),
    E.bimap(
      (errors) => storageFailure(`Storage failure: an audit entry is invalid (${toFieldErrors(errors, "row").map((error) => `${error.field} ${error.message}`).join("; ")}).`),
      ({ request_id, failure, ...row }): AuditEntry => ({ ...row, requestId: request_id, failure: failure as AuditEntry["failure"] }),
    ),
  );

const COLUMNS = "id, at, actor, request_id, action, alias, fields, forced, validation, outcome, failure, detail";

/** Inserts an entry through `client`: the log's own pool, or the transaction of the change it records. */
export const insertAuditEntry = async (client: Pick<PoolClient, "query">, entry: AuditEntry): Promise<void> => {
  await client.query(`insert into audit_entries (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, [
    entry.id,
    entry.at,
    entry.actor,
    entry.requestId,
    entry.action,
    entry.alias,
    entry.fields,
    entry.forced,
    entry.validation,
    entry.outcome,
    entry.failure,
    entry.detail,
  ]);
};

/**
 * Deletes what the retention no longer keeps: too old, or beyond the newest `maxEntries` changes or the newest
 * `maxAttempts` attempts, counted apart (`kind`, migration 7), so attempts never push a change out.
 */
export const pruneAuditTrail = async (pool: Pool, retention: AuditRetention): Promise<void> => {
  await pool.query(
    `delete from audit_entries
      where at < $1
         or (kind = 'change' and id <= (select id from audit_entries where kind = 'change' order by id desc offset $2 limit 1))
         or (kind = 'attempt' and id <= (select id from audit_entries where kind = 'attempt' order by id desc offset $3 limit 1))`,
    [oldestKeptBy(retention), retention.maxEntries, retention.maxAttempts],
  );
};

const oldestKeptBy = (retention: AuditRetention) => new Date(Date.now() - retention.maxAgeMs);

/**
 * Core's AuditLog in the `audit_entries` table, beside the connections. Each
 * record inserts its entry, then deletes what the retention no longer keeps
 * (`pruneAuditTrail`). The repository records a change's entry in the
 * change's own transaction (`insertAuditEntry`).
 */
export const createPostgresAuditLog = ({ pool, retention = DEFAULT_AUDIT_RETENTION }: PostgresAuditLogOptions): AuditLog => {
  const query = (what: string, text: string, values: readonly unknown[]) =>
    TE.tryCatch(async () => (await pool.query(text, values as unknown[])).rows as unknown[], databaseFailure(what));
  const oldestKept = () => oldestKeptBy(retention);

  return {
    record: (entry) =>
      pipe(
        TE.tryCatch(() => insertAuditEntry(pool, entry), databaseFailure("recording an audit entry")),
        TE.flatMap(() => TE.tryCatch(() => pruneAuditTrail(pool, retention), databaseFailure("pruning the audit trail"))),
      ),

    list: ({ alias, since, before, limit }) =>
      pipe(
        query(
          "reading the audit trail",
          `select ${COLUMNS} from audit_entries
            where at >= $1
              and ($2::text is null or alias_key = $2)
              and ($3::timestamptz is null or at >= $3)
              and ($4::text is null or id < $4)
            order by id desc
            limit $5`,
          [oldestKept(), alias === undefined ? null : aliasKey(alias), since ?? null, before ?? null, limit],
        ),
        TE.chainEitherK((rows) => A.traverse(E.Applicative)(decodeRow)(rows)),
      ),
  };
};
