import * as A from "fp-ts/lib/Array.js";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import type { ClientConfig, Pool, PoolClient } from "pg";
import {
  aliasKey,
  AuditEntryProps,
  createAuditListeners,
  DEFAULT_AUDIT_RETENTION,
  eventOf,
  eventTypeOf,
  decodeStored,
  type AuditEntry,
  type AuditHead,
  type AuditLog,
  type AuditPageAfter,
  type AuditRetention,
  type DomainError,
} from "@sdwan-connections/core";
import { databaseFailure } from "./database-errors.js";
import { listenChannel, type ChannelListener } from "./listen-channel.js";
import { DateCodec } from "./rows.js";

export interface PostgresAuditLogOptions {
  /** A migrated pool (`migrate(pool)`), as the repository's. */
  readonly pool: Pool;
  readonly retention?: AuditRetention;
  /** How to open the LISTEN connection subscribers share (opened at the first subscriber), e.g. `{ connectionString }`; from `pool` when not given. */
  readonly listener?: ClientConfig;
  /** Hears about a lost LISTEN connection or an announced entry not read (never fatal); one line each, never the URL. */
  readonly onError?: (line: string) => void;
}

/** The channel migration 9's trigger announces each committed entry's id on. */
export const AUDIT_ENTRIES_CHANNEL = "sdwan_audit_entries";

/** A row of `audit_entries`; rows are outside input, so they are decoded. */
const AuditRow = t.type({
  ...AuditEntryProps,
  at: DateCodec,
  request_id: t.union([t.string, t.null]),
  version: t.union([t.number, t.null]),
  orchestrator_url: t.union([t.string, t.null]),
});

const decodeRow = (row: unknown): E.Either<DomainError, AuditEntry> =>
  E.map(({ request_id, failure, version, orchestrator_url, ...row }: t.TypeOf<typeof AuditRow>): AuditEntry => ({
    ...row,
    requestId: request_id,
    failure: failure as AuditEntry["failure"],
    ...(version === null ? {} : { version }),
    ...(orchestrator_url === null ? {} : { orchestratorUrl: orchestrator_url }),
  }))(decodeStored(AuditRow, "an audit entry")(row));

const COLUMNS =
  "id, at, actor, request_id, action, alias, fields, forced, validation, outcome, failure, detail, version, orchestrator_url";

/**
 * Inserts an entry through `client`: the log's own pool, or the transaction of the change it records. An entry that
 * is an event inserts, in the same statement, a pending delivery for each enabled webhook wanting it (the outbox).
 */
export const insertAuditEntry = async (client: Pick<PoolClient, "query">, entry: AuditEntry): Promise<void> => {
  const event = eventOf(entry);
  const insert = `insert into audit_entries (${COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`;
  await client.query(
    O.isNone(event)
      ? insert
      : `with entry as (${insert} returning id)
         insert into sdwan_webhook_deliveries (id, webhook_id, event_id, event, next_attempt_at)
         select gen_random_uuid(), w.id, entry.id, $15, $2 from sdwan_webhooks w, entry
          where w.disabled_at is null and exists (select 1 from unnest(w.types) p where $16 like replace(p, '*', '%'))
          order by w.id`,
    [
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
      entry.version ?? null,
      entry.orchestratorUrl ?? null,
      ...(O.isNone(event) ? [] : [JSON.stringify(event.value), eventTypeOf(event.value)]),
    ],
  );
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
 * change's own transaction (`insertAuditEntry`). Subscribers share one LISTEN
 * connection (opened at the first, closed by `close`): each announced id
 * (migration 9, at commit, from any instance) is read back, those announced
 * meanwhile together, and told in the order announced.
 */
export const createPostgresAuditLog = ({
  pool,
  retention = DEFAULT_AUDIT_RETENTION,
  listener,
  onError = () => undefined,
}: PostgresAuditLogOptions): AuditLog & { close(): Promise<void> } => {
  const query = (what: string, text: string, values: readonly unknown[]) =>
    TE.tryCatch(async () => (await pool.query(text, values as unknown[])).rows as unknown[], databaseFailure(what));
  const oldestKept = () => oldestKeptBy(retention);
  const readEntries = (what: string, text: string, values: readonly unknown[]) =>
    pipe(
      query(what, text, values),
      TE.chainEitherK((rows) => A.traverse(E.Applicative)(decodeRow)(rows)),
    );

  const reportFailure = (error: DomainError) => onError("reason" in error ? error.reason : error._tag);
  const listeners = createAuditListeners();
  let announced: string[] = [];
  let reading: Promise<void> | undefined;
  // The newest id told: after a lost LISTEN connection, what was committed meanwhile is read from there.
  let lastTold: string | null = null;
  const tellAll = (entries: readonly AuditEntry[]) => {
    for (const entry of entries) {
      if (lastTold === null || entry.id > lastTold) lastTold = entry.id;
      listeners.tell(entry);
    }
  };
  const readAnnounced = async (): Promise<void> => {
    while (announced.length > 0) {
      const ids = announced;
      announced = [];
      const found = await readEntries(
        "reading announced audit entries",
        `select ${COLUMNS} from audit_entries where id = any($1)`,
        [ids],
      )();
      if (E.isLeft(found)) reportFailure(found.left);
      else {
        const byId = new Map(found.right.map((entry) => [entry.id, entry]));
        tellAll(ids.flatMap((id) => byId.get(id) ?? []));
      }
    }
    reading = undefined;
  };
  const onPayload = (id: string) => {
    announced.push(id);
    reading ??= readAnnounced();
  };
  let channel: Promise<ChannelListener> | undefined;
  const listening = () =>
    (channel ??= listenChannel({
      pool,
      listener,
      channel: AUDIT_ENTRIES_CHANNEL,
      onPayload,
      // Best effort: what committed while the connection was down, from the newest entry told.
      onRestored: () =>
        void listAfter(lastTold, 10_000)().then((found) =>
          E.isRight(found) ? tellAll(found.right.entries) : reportFailure(found.left),
        ),
      onError,
    })
      // Where a restoration reads from when nothing was told yet: the trail's end when listening began, never its start
      // (its whole past would be told to every subscriber again).
      .then(async (opened) => {
        const newest = await pool
          .query<{ id: string | null }>("select max(id) as id from audit_entries")
          .catch(async (error: unknown) => {
            await opened.close();
            throw error;
          });
        lastTold ??= newest.rows[0]?.id ?? null;
        return opened;
      })
      .catch((error: unknown) => {
        channel = undefined;
        throw error;
      }));

  // A page by id (the primary key's index): only the rows `select` keeps, asked of their raw columns, are decoded.
  const listAfter = (
    after: string | null,
    limit: number,
    select: (head: AuditHead) => boolean = () => true,
  ): TE.TaskEither<DomainError, AuditPageAfter> =>
    pipe(
      query(
        "reading the audit trail",
        `select ${COLUMNS} from audit_entries where at >= $1 and ($2::text is null or id > $2) order by id limit $3`,
        [oldestKept(), after, limit],
      ),
      TE.chainEitherK((rows) =>
        pipe(
          A.traverse(E.Applicative)(decodeRow)(rows.filter((row) => select(row as AuditHead))),
          E.map((entries) => ({
            entries,
            next: rows.length < limit ? null : String((rows.at(-1) as { id: unknown }).id),
          })),
        ),
      ),
    );

  return {
    record: (entry) =>
      pipe(
        TE.tryCatch(() => insertAuditEntry(pool, entry), databaseFailure("recording an audit entry")),
        TE.flatMap(() =>
          TE.tryCatch(() => pruneAuditTrail(pool, retention), databaseFailure("pruning the audit trail")),
        ),
      ),

    listAfter,

    subscribe: (listen) =>
      pipe(
        TE.tryCatch(listening, databaseFailure("listening for audit entries")),
        TE.map(() => listeners.add(listen)),
      ),

    close: async () => {
      const current = channel;
      channel = undefined;
      await (await current?.catch(() => undefined))?.close();
      await reading;
    },

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
