import * as E from "fp-ts/lib/Either.js";
import { identity, pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { randomUUID } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import {
  CloudEventCodec,
  isUuid,
  redeliveryOf,
  storageFailure,
  decodeStored,
  WEBHOOK_HISTORY,
  type ClaimedDelivery,
  type DomainError,
  type WebhookSecrets,
  type WebhookStore,
} from "@sdwan-connections/core";
import { Delivery, DeliveryAttempt, Webhook } from "@sdwan-connections/core/wire";
import { describeSecretError, type Keyring } from "@sdwan-connections/secrets";
import { databaseFailure } from "./database-errors.js";
import { withDedicatedClient } from "./dedicated-client.js";
import { DateCodec } from "./rows.js";

const WEBHOOK_COLUMNS = "id, url, types, kind, created_at, disabled_at, secrets";
// A webhook, its times in columns of their own, its secrets sealed.
const { createdAt: _created, disabledAt: _disabled, ...webhookProps } = Webhook.props;
const WebhookRow = t.type({
  ...webhookProps,
  created_at: DateCodec,
  disabled_at: t.union([DateCodec, t.null]),
  secrets: t.string,
});
type WebhookRow = t.TypeOf<typeof WebhookRow>;

const DELIVERY_COLUMNS = "id, webhook_id, event_id, event, status, next_attempt_at, attempts";
const DeliveryRow = t.type({
  id: t.string,
  webhook_id: t.string,
  event_id: t.string,
  event: CloudEventCodec,
  status: Delivery.props.status,
  next_attempt_at: DateCodec,
  attempts: t.readonlyArray(DeliveryAttempt),
});
type DeliveryRow = t.TypeOf<typeof DeliveryRow>;

const decodeRows = <A>(codec: t.Decoder<unknown, A>, what: string, rows: readonly unknown[]) =>
  E.map((decoded: readonly A[]) => [...decoded])(E.traverseArray(decodeStored(codec, what))(rows));

const webhookOf = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  types: row.types,
  kind: row.kind,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
});
const deliveryOf = (row: DeliveryRow): Delivery => ({
  id: row.id,
  webhookId: row.webhook_id,
  eventId: row.event_id,
  status: row.status,
  nextAttemptAt: row.next_attempt_at,
  attempts: row.attempts,
});
const associatedData = (id: string) => `webhook:${id}`;

/**
 * Webhooks in `sdwan_webhooks` (secrets sealed by the keyring) and their outbox in `sdwan_webhook_deliveries`,
 * whose rows the audit log's insert writes (migration 11). A claim, one statement, locks the enabled webhooks no
 * other claim holds (`skip locked`) and leases their runs of due pending rows, each lease's conditions checked again
 * on the row as it is at the update: two relays never take the same row, and a lease that ran out (its owner died) is
 * taken over.
 */
export const createPostgresWebhookStore = ({
  pool,
  keyring,
}: {
  readonly pool: Pool;
  readonly keyring: Keyring;
}): WebhookStore => {
  // `run` may reject (a database error): named here, then its own Left passed on.
  const query = <A>(what: string, run: TE.TaskEither<DomainError, A>): TE.TaskEither<DomainError, A> =>
    pipe(TE.tryCatch(run, databaseFailure(what)), TE.chainEitherK(identity));

  const openSecrets = (row: WebhookRow): E.Either<DomainError, WebhookSecrets> =>
    pipe(
      keyring.open(row.secrets, associatedData(row.id)),
      E.bimap(
        (error) =>
          storageFailure(
            `Storage failure: the secrets of webhook ${row.id} do not open: ${describeSecretError(error)}.`,
          ),
        (opened) => JSON.parse(opened) as WebhookSecrets,
      ),
    );
  const webhookRows = async (where: string, values: readonly unknown[]) =>
    decodeRows(
      WebhookRow,
      "a webhook",
      (await pool.query(`select ${WEBHOOK_COLUMNS} from sdwan_webhooks ${where} order by created_at, id`, [...values]))
        .rows,
    );
  // Every lookup by id reads the primary key (a uuid); an id of another form is none (core's isUuid).
  const webhookById = async (id: string) =>
    isUuid(id) ? webhookRows("where id = $1::uuid", [id]) : E.right<DomainError, WebhookRow[]>([]);

  return {
    create: (webhook, secrets) =>
      query("creating a webhook", async () => {
        await pool.query(`insert into sdwan_webhooks (${WEBHOOK_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7)`, [
          webhook.id,
          webhook.url,
          webhook.types,
          webhook.kind,
          webhook.createdAt,
          webhook.disabledAt,
          keyring.seal(JSON.stringify(secrets), associatedData(webhook.id)),
        ]);
        return E.right(undefined);
      }),
    list: () =>
      query("listing webhooks", async () =>
        E.map((rows: WebhookRow[]) => rows.map(webhookOf))(await webhookRows("", [])),
      ),
    get: (id) =>
      query("reading a webhook", async () =>
        E.map((rows: WebhookRow[]) => rows.map(webhookOf)[0])(await webhookById(id)),
      ),
    secrets: (id) =>
      query("reading a webhook", async () =>
        E.flatMap((rows: WebhookRow[]) => (rows[0] === undefined ? E.right(undefined) : openSecrets(rows[0])))(
          await webhookById(id),
        ),
      ),
    remove: (id) =>
      query("removing a webhook", async () =>
        E.right(
          isUuid(id) && ((await pool.query("delete from sdwan_webhooks where id = $1::uuid", [id])).rowCount ?? 0) > 0,
        ),
      ),
    claim: (owner, now, leaseUntil, limit, busy = []) =>
      query("claiming webhook deliveries", async () => {
        const others = busy.filter(isUuid);
        const { rows } = await pool.query(
          // One statement. The webhooks no other claim holds whose oldest pending row is due and not held, locked to its
          // end (an insert's key share does not wait for them; a look that finds nothing, the most common, locks
          // nothing); per webhook its pending rows up to the first held or not due, leased; each row planned (`runs`)
          // beside whether it was leased. Its snapshot may predate a claim that committed before the locks were had:
          // the update checks the lease's conditions again on each row as it is then, so such a claim's rows (leased,
          // or settled since) are not leased again.
          `with webhooks as (
             select w.id from sdwan_webhooks w
              where w.disabled_at is null and w.id <> all($5::uuid[]) and exists (
                select 1 from (select d.next_attempt_at, d.lease_until, d.lease_owner from sdwan_webhook_deliveries d
                                where d.webhook_id = w.id and d.status = 'pending' order by d.seq limit 1) head
                 where head.next_attempt_at <= $1 and (head.lease_until is null or head.lease_until <= $1 or head.lease_owner = $2))
                for no key update skip locked
           ), pending as (
             select d.seq, d.webhook_id,
                    row_number() over (partition by d.webhook_id order by d.seq) as position,
                    not (d.next_attempt_at <= $1 and (d.lease_until is null or d.lease_until <= $1 or d.lease_owner = $2)) as held
               from sdwan_webhook_deliveries d
              where d.webhook_id in (select id from webhooks) and d.status = 'pending'
           ), runs as (
             select p.seq, p.webhook_id from pending p
              where not exists (select 1 from pending q where q.webhook_id = p.webhook_id and q.held and q.position <= p.position)
              order by p.seq limit $4
           ), leased as (
             update sdwan_webhook_deliveries d set lease_owner = $2, lease_until = $3 from runs
              where d.seq = runs.seq and d.status = 'pending' and d.next_attempt_at <= $1
                and (d.lease_until is null or d.lease_until <= $1 or d.lease_owner = $2)
             returning ${DELIVERY_COLUMNS.split(", ")
               .map((column) => `d.${column}`)
               .join(", ")}, d.seq
           )
           select runs.webhook_id as planned_webhook_id, leased.*, ${WEBHOOK_COLUMNS.replace(/^id, /, "")}
             from runs left join leased on leased.seq = runs.seq join sdwan_webhooks w on w.id = runs.webhook_id
            order by runs.seq`,
          [now, owner, leaseUntil, limit, others],
        );
        // A run ends at its first row not leased (leased or settled by another claim meanwhile): what follows it stays
        // for a later claim, so that events reach the webhook in order.
        const ended = new Set<string>();
        const leased = rows.filter((row: { planned_webhook_id: string; seq: string | null }) => {
          if (row.seq === null) ended.add(row.planned_webhook_id);
          return !ended.has(row.planned_webhook_id);
        });
        // Each row is a delivery and its webhook's columns (the webhook's id its `webhook_id`).
        const deliveries = decodeRows(DeliveryRow, "a webhook delivery", leased);
        const webhooks = decodeRows(
          WebhookRow,
          "a webhook",
          leased.map((row) => ({ ...row, id: row.webhook_id })),
        );
        if (E.isLeft(deliveries)) return deliveries;
        if (E.isLeft(webhooks)) return webhooks;
        const claimed: ClaimedDelivery[] = [];
        for (const [index, row] of deliveries.right.entries()) {
          const webhook = webhooks.right[index] as WebhookRow;
          const secrets = openSecrets(webhook);
          if (E.isLeft(secrets)) return secrets;
          claimed.push({
            delivery: deliveryOf(row),
            webhook: webhookOf(webhook),
            secrets: secrets.right,
            event: row.event,
          });
        }
        return E.right(claimed);
      }),
    settle: (id, owner, attempt, next) =>
      query("recording a webhook delivery", async () => {
        await pool.query(
          // A settlement also deletes its webhook's settled deliveries beyond the history (a retry deletes none):
          // the newest are read from their index, and the first beyond it goes with those before it (one row in the
          // steady state). The statement sees the table as it was before it, so this delivery is counted apart; rows
          // another settlement is deleting at once are left to it (no waits, no deadlocks). The id is a claim's.
          `with settled as (
             update sdwan_webhook_deliveries
                set status = $3, next_attempt_at = $4, attempts = attempts || $5::jsonb, lease_owner = null, lease_until = null
              where id = $1::uuid and lease_owner = $2
             returning webhook_id, seq, status
           ), disabled as (
             update sdwan_webhooks set disabled_at = $6 where $7 and id = (select webhook_id from settled)
           ), history as (
             (select seq from sdwan_webhook_deliveries
               where webhook_id = (select webhook_id from settled where status <> 'pending') and status <> 'pending'
               order by seq desc limit $8 + 1)
             union all
             select seq from settled where status <> 'pending'
           )
           delete from sdwan_webhook_deliveries where seq in (
             select seq from sdwan_webhook_deliveries
              where webhook_id = (select webhook_id from settled) and status <> 'pending'
                and seq <= (select seq from history order by seq desc offset $8 limit 1)
                for update skip locked
           )`,
          [
            id,
            owner,
            next.status === "gone" ? "dead" : next.status,
            next.status === "pending" ? next.at : attempt.at,
            JSON.stringify([{ ...attempt, at: attempt.at.toISOString() }]),
            attempt.at,
            next.status === "gone",
            WEBHOOK_HISTORY,
          ],
        );
        return E.right(undefined);
      }),
    deliveries: (id, limit, status) =>
      query("listing webhook deliveries", async () =>
        E.map((rows: DeliveryRow[]) => rows.map(deliveryOf))(
          decodeRows(
            DeliveryRow,
            "a webhook delivery",
            isUuid(id)
              ? (
                  await pool.query(
                    `select ${DELIVERY_COLUMNS} from sdwan_webhook_deliveries
                      where webhook_id = $1::uuid and ($3::text is null or status = $3) order by seq desc limit $2`,
                    [id, limit, status ?? null],
                  )
                ).rows
              : [],
          ),
        ),
      ),
    // Every row keeps its event. The webhook's row is locked (as a claim's `for no key update`) so that two
    // redeliveries at once are decided one after the other: the second sees the first's pending row.
    redeliver: (webhookId, deliveryId, at) =>
      query("redelivering a webhook delivery", () =>
        withDedicatedClient(pool, async (client: PoolClient) => {
          if (!isUuid(webhookId) || !isUuid(deliveryId)) return E.right({ _tag: "unknown" as const });
          await client.query("begin");
          let committed = false;
          try {
            await client.query("select 1 from sdwan_webhooks where id = $1::uuid for no key update", [webhookId]);
            const rows = decodeRows(
              DeliveryRow,
              "a webhook delivery",
              (
                await client.query(
                  `select ${DELIVERY_COLUMNS} from sdwan_webhook_deliveries where webhook_id = $1::uuid
                      and (id = $2::uuid or (status = 'pending' and event_id = (
                        select event_id from sdwan_webhook_deliveries where id = $2::uuid)))
                    order by seq`,
                  [webhookId, deliveryId],
                )
              ).rows,
            );
            if (E.isLeft(rows)) return rows;
            const event = rows.right.find((row) => row.id === deliveryId)?.event;
            const redelivery = redeliveryOf(deliveryId, rows.right.map(deliveryOf), event, at, randomUUID());
            if (redelivery._tag === "queued")
              await client.query(
                `insert into sdwan_webhook_deliveries (id, webhook_id, event_id, event, status, next_attempt_at)
                 values ($1, $2, $3, $4, 'pending', $5)`,
                [redelivery.delivery.id, webhookId, redelivery.delivery.eventId, JSON.stringify(event), at],
              );
            await client.query("commit");
            committed = true;
            return E.right(redelivery);
          } finally {
            if (!committed) await client.query("rollback").catch(() => undefined);
          }
        }),
      ),
    resealSecrets: () =>
      query("re-sealing webhook secrets", () =>
        withDedicatedClient(pool, async (client: PoolClient) => {
          await client.query("begin");
          const rows = decodeRows(
            WebhookRow,
            "a webhook",
            (await client.query(`select ${WEBHOOK_COLUMNS} from sdwan_webhooks order by id for update`)).rows,
          );
          if (E.isLeft(rows)) {
            await client.query("rollback");
            return rows;
          }
          let rotated = 0;
          for (const row of rows.right) {
            if (!keyring.needsRotation(row.secrets)) continue;
            const secrets = openSecrets(row);
            if (E.isLeft(secrets)) {
              await client.query("rollback");
              return secrets;
            }
            await client.query("update sdwan_webhooks set secrets = $2 where id = $1", [
              row.id,
              keyring.seal(JSON.stringify(secrets.right), associatedData(row.id)),
            ]);
            rotated += 1;
          }
          await client.query("commit");
          return E.right({ rotated, total: rows.right.length });
        }),
      ),
  };
};
