import * as A from "fp-ts/lib/Array.js";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import type { Pool } from "pg";
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

/**
 * Core's AuditLog in the `audit_entries` table, beside the connections. Each
 * record inserts its entry, then deletes what the retention no longer keeps
 * (too old, or beyond the newest `maxEntries`).
 */
export const createPostgresAuditLog = ({ pool, retention = DEFAULT_AUDIT_RETENTION }: PostgresAuditLogOptions): AuditLog => {
  const query = (what: string, text: string, values: readonly unknown[]) =>
    TE.tryCatch(async () => (await pool.query(text, values as unknown[])).rows as unknown[], databaseFailure(what));
  const oldestKept = () => new Date(Date.now() - retention.maxAgeMs);

  return {
    record: (entry) =>
      pipe(
        query("recording an audit entry", `insert into audit_entries (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, [
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
        ]),
        TE.flatMap(() =>
          query(
            "pruning the audit trail",
            `delete from audit_entries
              where at < $1
                 or id <= (select id from audit_entries order by id desc offset $2 limit 1)`,
            [oldestKept(), retention.maxEntries],
          ),
        ),
        TE.map(() => undefined),
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
