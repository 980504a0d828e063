import { randomUUID } from "node:crypto";
import {
  DELIVERY_STATUSES,
  IsoTimeCodec,
  oneOf,
  eventOf,
  WEBHOOK_KINDS,
  withinHistory,
  type ClaimedDelivery,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryNext,
  type Webhook,
  type WebhookSecrets,
  type WebhookStore,
} from "@sdwan-connections/core";
import type { Keyring } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import * as t from "io-ts";
import type { TrailOutbox } from "./audit-file.js";
import { openSharedJsonFile } from "./shared-json-file.js";

/** Name of the webhooks' file inside the data directory: the webhooks (secrets sealed) and their deliveries' state. */
export const WEBHOOKS_FILE = "webhooks.json";

const WebhookEntry = t.type({
  id: t.string,
  url: t.string,
  types: t.array(t.string),
  kind: oneOf(WEBHOOK_KINDS),
  createdAt: IsoTimeCodec,
  disabledAt: t.union([IsoTimeCodec, t.null]),
  /** The secrets, sealed by the keyring for this webhook's id. */
  sealed: t.string,
});
type WebhookEntry = t.TypeOf<typeof WebhookEntry>;
const Attempt = t.type({
  at: IsoTimeCodec,
  status: t.union([t.number, t.null]),
  error: t.union([t.string, t.null]),
  latencyMs: t.number,
});
const DeliveryEntry = t.type({
  id: t.string,
  webhookId: t.string,
  eventId: t.string,
  status: oneOf(DELIVERY_STATUSES),
  nextAttemptAt: IsoTimeCodec,
  attempts: t.array(Attempt),
  /** The event as it is delivered (CloudEvents JSON): the audit entry may be pruned before it is. */
  event: t.string,
  lease: t.union([t.type({ owner: t.string, until: IsoTimeCodec }), t.null]),
});
type DeliveryEntry = t.TypeOf<typeof DeliveryEntry>;
const WebhooksFileCodec = t.type({
  webhooks: t.array(WebhookEntry),
  deliveries: t.array(DeliveryEntry),
  /** The last audit entry turned into deliveries. */
  cursor: t.union([t.string, t.null]),
});
type WebhooksFile = t.TypeOf<typeof WebhooksFileCodec>;

const webhookOf = ({ sealed: _sealed, ...webhook }: WebhookEntry): Webhook => webhook;
const deliveryOf = ({ event: _event, lease: _lease, ...delivery }: DeliveryEntry): Delivery => delivery;
const associatedData = (id: string) => `webhook:${id}`;

export interface LowdbWebhookStoreOptions {
  readonly dataDir: string;
  /** Seals the secrets, as connections.json's apiKeys. */
  readonly keyring: Keyring;
  /** The audit trail's outbox (the entries naming webhooks). */
  readonly outboxAfter: (cursor: string | null) => Promise<TrailOutbox>;
  readonly lockStaleMs?: number;
}

/**
 * Webhooks in `webhooks.json` beside `connections.json`. The outbox rows are the audit trail's own lines (each
 * names the webhooks its event goes to, written in the same append: an acknowledged change always has them);
 * this file keeps what happened to them. A claim, under the file's lock, first turns the trail's new lines into
 * deliveries (up to the first whose change has not landed), then leases the due ones.
 */
export const createLowdbWebhookStore = ({
  dataDir,
  keyring,
  outboxAfter,
  lockStaleMs = 10_000,
}: LowdbWebhookStoreOptions): WebhookStore & {
  /** The webhooks (for the trail's appends). */
  current(): Promise<readonly Webhook[]>;
  close(): Promise<void>;
} => {
  const file = openSharedJsonFile<WebhooksFile>({
    dataDir,
    name: WEBHOOKS_FILE,
    codec: WebhooksFileCodec,
    empty: { webhooks: [], deliveries: [], cursor: null },
    what: "a webhooks file",
    lockStaleMs,
  });
  const openSecrets = (entry: WebhookEntry): WebhookSecrets => {
    const opened = keyring.open(entry.sealed, associatedData(entry.id));
    if (E.isLeft(opened)) throw new Error(`the secrets of webhook ${entry.id} do not open (${opened.left._tag})`);
    return JSON.parse(opened.right) as WebhookSecrets;
  };
  /** Settled deliveries beyond each webhook's history are dropped; those of removed webhooks too. */
  const trimmed = (deliveries: readonly DeliveryEntry[], webhooks: readonly WebhookEntry[]): DeliveryEntry[] => {
    const known = new Set(webhooks.map((webhook) => webhook.id));
    return withinHistory(
      deliveries.filter((delivery) => known.has(delivery.webhookId)),
      (delivery) => delivery,
    );
  };

  // Settlements not written yet: the next change writes them first.
  let settlements: { id: string; owner: string; attempt: DeliveryAttempt; next: DeliveryNext }[] = [];
  /** `current` with the settlements waiting (each only while its owner still holds the delivery). */
  const settled = (current: WebhooksFile): WebhooksFile => {
    const waiting = settlements;
    settlements = [];
    let { webhooks, deliveries } = current;
    for (const { id, owner, attempt, next } of waiting) {
      const delivery = deliveries.find((one) => one.id === id);
      if (delivery === undefined || delivery.lease?.owner !== owner) continue;
      const done: DeliveryEntry = {
        ...delivery,
        status: next.status === "gone" ? "dead" : next.status,
        nextAttemptAt: next.status === "pending" ? next.at : attempt.at,
        attempts: [...delivery.attempts, attempt],
        lease: null,
      };
      if (next.status === "gone")
        webhooks = webhooks.map((webhook) =>
          webhook.id === delivery.webhookId ? { ...webhook, disabledAt: attempt.at } : webhook,
        );
      deliveries = deliveries.map((one) => (one.id === id ? done : one));
    }
    return waiting.length === 0 ? current : { ...current, webhooks, deliveries: trimmed(deliveries, webhooks) };
  };

  /** `answer` over the file as it is, the settlements waiting written first. */
  const view = <A>(answer: (current: WebhooksFile) => A) =>
    settlements.length === 0
      ? file.read("reading", answer)
      : file.change("writing", async (read) => {
          const current = settled(read);
          return { contents: current, answer: answer(current) };
        });

  /**
   * Under the lock: the file with the settlements waiting and the trail's new outbox lines turned into pending
   * deliveries (itself when neither).
   */
  const withOutbox = async (read: WebhooksFile): Promise<WebhooksFile> => {
    const current = settled(read);
    const outbox = await outboxAfter(current.cursor);
    if (outbox.cursor === current.cursor) return current;
    const known = new Set(current.webhooks.map((webhook) => webhook.id));
    const added = outbox.marked.flatMap(({ entry, webhooks }) =>
      O.match(
        (): DeliveryEntry[] => [],
        (event) =>
          webhooks
            .filter((id) => known.has(id))
            .map((webhookId): DeliveryEntry => ({
              id: randomUUID(),
              webhookId,
              eventId: entry.id,
              status: "pending",
              nextAttemptAt: entry.at,
              attempts: [],
              event: JSON.stringify(event),
              lease: null,
            })),
      )(eventOf(entry)),
    );
    return { ...current, deliveries: [...current.deliveries, ...added], cursor: outbox.cursor };
  };

  return {
    current: async () => {
      const read = await file.read("reading", ({ webhooks }) => webhooks.map(webhookOf))();
      if (E.isLeft(read)) throw new Error(read.left._tag);
      return read.right;
    },
    create: (webhook, secrets) =>
      file.change("writing", async (current) => ({
        contents: {
          ...current,
          webhooks: [
            ...current.webhooks,
            {
              ...webhook,
              types: [...webhook.types],
              sealed: keyring.seal(JSON.stringify(secrets), associatedData(webhook.id)),
            },
          ],
        },
        answer: undefined,
      })),
    list: () => view(({ webhooks }) => webhooks.map(webhookOf)),
    get: (id) => view(({ webhooks }) => webhooks.map(webhookOf).find((webhook) => webhook.id === id)),
    secrets: (id) =>
      file.read("reading", ({ webhooks }) => {
        const entry = webhooks.find((webhook) => webhook.id === id);
        return entry === undefined ? undefined : openSecrets(entry);
      }),
    remove: (id) =>
      file.change("writing", async (current) => {
        if (!current.webhooks.some((webhook) => webhook.id === id)) return { answer: false };
        const webhooks = current.webhooks.filter((webhook) => webhook.id !== id);
        return { contents: { ...current, webhooks, deliveries: trimmed(current.deliveries, webhooks) }, answer: true };
      }),
    claim: (owner, now, leaseUntil, limit) =>
      file.change("writing", async (read) => {
        const current = await withOutbox(read);
        const byId = new Map(current.webhooks.map((webhook) => [webhook.id, webhook]));
        const deliveries = [...current.deliveries];
        const claimed: ClaimedDelivery[] = [];
        // The webhooks whose run ended (a delivery not due, or held by another owner).
        const ended = new Set<string>();
        for (const [index, delivery] of deliveries.entries()) {
          if (claimed.length >= limit) break;
          const webhook = byId.get(delivery.webhookId);
          if (delivery.status !== "pending" || webhook === undefined || ended.has(webhook.id)) continue;
          const leased = delivery.lease !== null && delivery.lease.owner !== owner && delivery.lease.until > now;
          if (webhook.disabledAt !== null || leased || delivery.nextAttemptAt > now) {
            ended.add(webhook.id);
            continue;
          }
          const leasedNow = { ...delivery, lease: { owner, until: leaseUntil } };
          deliveries[index] = leasedNow;
          claimed.push({
            delivery: deliveryOf(leasedNow),
            webhook: webhookOf(webhook),
            secrets: openSecrets(webhook),
            event: JSON.parse(delivery.event) as ClaimedDelivery["event"],
          });
        }
        return current === read && claimed.length === 0
          ? { answer: claimed }
          : { contents: { ...current, deliveries }, answer: claimed };
      }),
    // Written with the next change (a claim, most often: one write per round, not two per delivery).
    settle: (id, owner, attempt, next) => async () => {
      settlements.push({ id, owner, attempt, next });
      return E.right(undefined);
    },
    deliveries: (id, limit) =>
      file.change("writing", async (read) => {
        const current = await withOutbox(read);
        const answer = current.deliveries
          .filter((delivery) => delivery.webhookId === id)
          .reverse()
          .slice(0, limit)
          .map(deliveryOf);
        return current === read ? { answer } : { contents: current, answer };
      }),
    resealSecrets: () =>
      file.change("writing", async (current) => {
        const stale = current.webhooks.filter((webhook) => keyring.needsRotation(webhook.sealed));
        if (stale.length === 0) return { answer: { rotated: 0, total: current.webhooks.length } };
        const webhooks = current.webhooks.map((webhook) =>
          keyring.needsRotation(webhook.sealed)
            ? {
                ...webhook,
                sealed: keyring.seal(JSON.stringify(openSecrets(webhook)), associatedData(webhook.id)),
              }
            : webhook,
        );
        return { contents: { ...current, webhooks }, answer: { rotated: stale.length, total: webhooks.length } };
      }),
    close: async () => {
      if (settlements.length > 0)
        await file.change("writing", async (read) => ({ contents: settled(read), answer: undefined }))();
      await file.close();
    },
  };
};
