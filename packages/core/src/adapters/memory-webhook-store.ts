import { randomUUID } from "node:crypto";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import type { AuditEntry } from "../domain/audit.js";
import { claimable, pendingDelivery, settlementOf, webhookGone, type Lease } from "../domain/deliveries.js";
import { eventOf, type CloudEvent } from "../domain/events.js";
import {
  redeliveryOf,
  webhooksFor,
  withinHistory,
  type ClaimedDelivery,
  type Delivery,
  type Webhook,
  type WebhookSecrets,
} from "../domain/webhook.js";
import type { WebhookStore } from "../ports/webhook-store.js";

interface Row {
  delivery: Delivery;
  readonly event: CloudEvent;
  lease: Lease | undefined;
}

/**
 * Webhooks and their outbox in this process's memory (the fake of unit tests). `enqueue` is the outbox's write:
 * the store's audit log calls it as it records an entry, in the same tick.
 */
export const createInMemoryWebhookStore = (): WebhookStore & { enqueue(entry: AuditEntry): void } => {
  const webhooks = new Map<string, { webhook: Webhook; secrets: WebhookSecrets }>();
  // Oldest first: the order of the audit log.
  let rows: Row[] = [];
  const right = <A>(value: A) => E.right<never, A>(value);

  return {
    enqueue: (entry) => {
      const event = eventOf(entry);
      if (O.isNone(event)) return;
      const targets = webhooksFor(
        entry,
        [...webhooks.values()].map(({ webhook }) => webhook),
      );
      for (const webhook of targets)
        rows.push({ delivery: pendingDelivery(entry, webhook.id, randomUUID()), event: event.value, lease: undefined });
    },
    create: (webhook, secrets) => async () => {
      webhooks.set(webhook.id, { webhook, secrets });
      return right(undefined);
    },
    list: () => async () => right([...webhooks.values()].map(({ webhook }) => webhook)),
    get: (id) => async () => right(webhooks.get(id)?.webhook),
    remove: (id) => async () => {
      rows = rows.filter((row) => row.delivery.webhookId !== id);
      return right(webhooks.delete(id));
    },
    claim:
      (owner, now, leaseUntil, limit, busy = []) =>
      async () => {
        const targetOf = ({ webhookId }: Delivery) => {
          const target = busy.includes(webhookId) ? undefined : webhooks.get(webhookId);
          return target && { ...target, disabledAt: target.webhook.disabledAt };
        };
        const claimed = claimable(rows, (row) => ({ ...row, webhook: targetOf(row.delivery) }), { owner, now, limit });
        return right(
          claimed.map(({ row, webhook: { webhook, secrets } }): ClaimedDelivery => {
            row.lease = { owner, until: leaseUntil };
            return { delivery: row.delivery, webhook, secrets, event: row.event };
          }),
        );
      },
    settle: (id, owner, attempt, next) => async () => {
      const row = rows.find((one) => one.delivery.id === id);
      if (row === undefined || row.lease?.owner !== owner) return right(undefined);
      row.lease = undefined;
      row.delivery = { ...row.delivery, ...settlementOf(row.delivery, attempt, next) };
      rows = withinHistory(rows, (one) => one.delivery);
      const target = webhooks.get(row.delivery.webhookId);
      if (next.status === "gone" && target !== undefined)
        webhooks.set(target.webhook.id, { ...target, webhook: webhookGone(target.webhook, attempt.at) });
      return right(undefined);
    },
    deliveries: (id, limit, status) => async () =>
      right(
        rows
          .filter((row) => row.delivery.webhookId === id && (status === undefined || row.delivery.status === status))
          .map((row) => row.delivery)
          .reverse()
          .slice(0, limit),
      ),
    redeliver: (webhookId, deliveryId, at) => async () => {
      const own = rows.filter((row) => row.delivery.webhookId === webhookId);
      const event = own.find((row) => row.delivery.id === deliveryId)?.event;
      const redelivery = redeliveryOf(
        deliveryId,
        own.map((row) => row.delivery),
        event,
        at,
        randomUUID(),
      );
      if (redelivery._tag === "queued" && event !== undefined)
        rows.push({ delivery: redelivery.delivery, event, lease: undefined });
      return right(redelivery);
    },
    secrets: (id) => async () => right(webhooks.get(id)?.secrets),
    resealSecrets: () => async () => right({ rotated: 0, total: webhooks.size }),
  };
};
