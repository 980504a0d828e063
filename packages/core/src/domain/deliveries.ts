import type { AuditEntry } from "./audit.js";
import type { Delivery, DeliveryAttempt, DeliveryNext, Webhook } from "./webhook.js";

// The outbox's rules (as `withinHistory` and `redeliveryOf`): pure functions each store binds to its medium.

/** Who holds a claimed delivery, until when. */
export interface Lease {
  readonly owner: string;
  readonly until: Date;
}

/** A new pending delivery of an audit entry's event to a webhook, due when the entry was written. */
export const pendingDelivery = (entry: Pick<AuditEntry, "id" | "at">, webhookId: string, id: string): Delivery => ({
  id,
  webhookId,
  eventId: entry.id,
  status: "pending",
  nextAttemptAt: entry.at,
  attempts: [],
});

/**
 * What `owner` claims at `now` of `rows` (oldest first), seen through `view` (a row's delivery, its lease, and its
 * webhook: absent when removed, or busy): per webhook, its pending deliveries in order up to the first one not due
 * or leased to another owner (a webhook's deliveries are sent one after the other), `limit` at most; none of a
 * disabled webhook. Each with its index and its webhook.
 */
export const claimable = <R, W extends Pick<Webhook, "disabledAt">>(
  rows: readonly R[],
  view: (row: R) => {
    readonly delivery: Pick<Delivery, "webhookId" | "status" | "nextAttemptAt">;
    readonly lease: Lease | null | undefined;
    readonly webhook: W | undefined;
  },
  { owner, now, limit }: { readonly owner: string; readonly now: Date; readonly limit: number },
): { readonly index: number; readonly row: R; readonly webhook: W }[] => {
  const claimed: { index: number; row: R; webhook: W }[] = [];
  // The webhooks whose run ended (a delivery not due, or held by another owner).
  const ended = new Set<string>();
  for (const [index, row] of rows.entries()) {
    if (claimed.length >= limit) break;
    const { delivery, lease, webhook } = view(row);
    if (delivery.status !== "pending" || webhook === undefined || ended.has(delivery.webhookId)) continue;
    const leased = lease !== null && lease !== undefined && lease.owner !== owner && lease.until > now;
    if (webhook.disabledAt !== null || leased || delivery.nextAttemptAt > now) ended.add(delivery.webhookId);
    else claimed.push({ index, row, webhook });
  }
  return claimed;
};

/** What an attempt changes of a delivery: `gone` (the receiver answered 410) is dead, as `webhookGone` says of its webhook. */
export const settlementOf = (
  delivery: Pick<Delivery, "attempts">,
  attempt: DeliveryAttempt,
  next: DeliveryNext,
): Pick<Delivery, "status" | "nextAttemptAt" | "attempts"> => ({
  status: next.status === "gone" ? "dead" : next.status,
  nextAttemptAt: next.status === "pending" ? next.at : attempt.at,
  attempts: [...delivery.attempts, attempt],
});

/** A webhook whose receiver is gone: disabled from that attempt's time (the first such time, when it was already). */
export const webhookGone = <W extends Pick<Webhook, "disabledAt">>(webhook: W, at: Date): W =>
  webhook.disabledAt === null ? { ...webhook, disabledAt: at } : webhook;
