import { randomUUID } from "node:crypto";
import {
  IsoTimeCodec,
  storageFailure,
  claimable,
  eventOf,
  pendingDelivery,
  settlementOf,
  webhookGone,
  redeliveryOf,
  withinHistory,
  type ClaimedDelivery,
  type DomainError,
  type DeliveryAttempt,
  type DeliveryNext,
  type WebhookSecrets,
  type WebhookStore,
} from "@sdwan-connections/core";
import { Delivery, Webhook } from "@sdwan-connections/core/wire";
import type { Keyring } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as O from "fp-ts/lib/Option.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { openSharedJsonFile, type SharedJsonFile } from "./shared-json-file.js";
import { openTrailOutbox } from "./trail-outbox.js";

/** Name of the webhooks' file inside the data directory: the webhooks, their secrets sealed. */
export const WEBHOOKS_FILE = "webhooks.json";
/** Name of the file of what happened to the outbox: the webhooks' deliveries and how far the trail was read. */
export const DELIVERIES_FILE = "webhook-deliveries.json";

// How long a settlement may wait to be written with a claim before it is written by itself.
const SETTLEMENTS_WAIT_MS = 250;

/** A webhook, its secrets sealed by the keyring for its id. */
const WebhookEntry = t.intersection([Webhook, t.type({ sealed: t.string })]);
type WebhookEntry = t.TypeOf<typeof WebhookEntry>;
const DeliveryEntry = t.intersection([
  Delivery,
  t.type({
    /** The event as it is delivered (CloudEvents JSON) while pending: the audit entry may be pruned before it is. */
    event: t.string,
    lease: t.union([t.type({ owner: t.string, until: IsoTimeCodec }), t.null]),
  }),
]);
type DeliveryEntry = t.TypeOf<typeof DeliveryEntry>;
const DeliveriesFileCodec = t.type({
  deliveries: t.array(DeliveryEntry),
  /** The last audit entry turned into deliveries. */
  cursor: t.union([t.string, t.null]),
});
type DeliveriesFile = t.TypeOf<typeof DeliveriesFileCodec>;
const WebhooksFileCodec = t.intersection([
  t.type({ webhooks: t.array(WebhookEntry) }),
  // Where the deliveries were kept before they had a file of their own: taken from there once.
  t.partial(DeliveriesFileCodec.props),
]);
type WebhooksFile = t.TypeOf<typeof WebhooksFileCodec>;

const webhookOf = ({ sealed: _sealed, ...webhook }: WebhookEntry): Webhook => webhook;
const deliveryOf = ({ event: _event, lease: _lease, ...delivery }: DeliveryEntry): Delivery => delivery;
const associatedData = (id: string) => `webhook:${id}`;

export interface LowdbWebhookStoreOptions {
  readonly dataDir: string;
  /** Seals the secrets, as connections.json's apiKeys. */
  readonly keyring: Keyring;
  readonly lockStaleMs?: number;
}

/**
 * Webhooks in `webhooks.json` beside `connections.json`, and their deliveries in `webhook-deliveries.json`. The
 * outbox rows are the audit trail's own lines (each names the webhooks its event goes to, written in the same
 * append: an acknowledged change always has them); the deliveries file keeps what happened to them. A claim, under
 * that file's lock, first turns the trail's new lines into deliveries (up to the first whose change has not
 * landed), then leases the due ones. Two files, so that the trail's appends, which read the webhooks, never wait
 * for the relays' claims and settlements.
 */
export const createLowdbWebhookStore = ({
  dataDir,
  keyring,
  lockStaleMs = 10_000,
}: LowdbWebhookStoreOptions): WebhookStore & {
  /** The webhooks (for the trail's appends). */
  current(): Promise<readonly Webhook[]>;
  /** How far the trail was turned into deliveries (its later lines naming webhooks are the outbox still). */
  cursor(): Promise<string | null>;
  close(): Promise<void>;
} => {
  const shared = { dataDir, lockStaleMs };
  // The outbox is the trail's lines, read from its file: the trail's appends read the webhooks, never the other way.
  const trail = openTrailOutbox(dataDir);
  const webhooksFile = openSharedJsonFile<WebhooksFile>({
    ...shared,
    name: WEBHOOKS_FILE,
    codec: WebhooksFileCodec,
    empty: { webhooks: [] },
  });
  const deliveriesFile = openSharedJsonFile<DeliveriesFile>({
    ...shared,
    name: DELIVERIES_FILE,
    codec: DeliveriesFileCodec,
    empty: { deliveries: [], cursor: null },
  });
  /** What a file holds now, for the trail (whose appends and rewrites fail by throwing): a failure thrown. */
  const readNow = async <A, B>(file: SharedJsonFile<A>, answer: (contents: A) => B): Promise<B> => {
    const read = await file.read("reading", answer)();
    if (E.isLeft(read)) throw new Error(read.left._tag === "StorageFailure" ? read.left.reason : read.left._tag);
    return read.right;
  };
  const webhooksNow = () => readNow(webhooksFile, (contents) => contents);
  const openSecrets = (entry: WebhookEntry): WebhookSecrets => {
    const opened = keyring.open(entry.sealed, associatedData(entry.id));
    if (E.isLeft(opened)) throw new Error(`the secrets of webhook ${entry.id} do not open (${opened.left._tag})`);
    return JSON.parse(opened.right) as WebhookSecrets;
  };
  /** Settled deliveries beyond each webhook's history are dropped (their event too); those of removed webhooks too. */
  const trimmed = (deliveries: readonly DeliveryEntry[], webhooks: readonly WebhookEntry[]): DeliveryEntry[] => {
    const known = new Set(webhooks.map((webhook) => webhook.id));
    return withinHistory(
      deliveries.filter((delivery) => known.has(delivery.webhookId)),
      (delivery) => delivery,
    );
  };

  // Settlements not written yet: the next change of the deliveries writes them first (`flush`: one that will).
  let flush: NodeJS.Timeout | undefined;
  let settlements: { id: string; owner: string; attempt: DeliveryAttempt; next: DeliveryNext }[] = [];
  /**
   * Under the deliveries' lock: the deliveries with the settlements waiting (each only while its owner still holds
   * the delivery) and the trail's new outbox lines turned into pending deliveries; `gone`, the webhooks whose
   * receiver is gone.
   */
  const withOutbox = async (read: DeliveriesFile) => {
    const { webhooks, ...legacy } = await webhooksNow();
    const start =
      read.cursor === null && legacy.cursor !== undefined && legacy.cursor !== null ? { ...read, ...legacy } : read;
    const waiting = settlements;
    settlements = [];
    const deliveries = [...start.deliveries];
    const gone: { readonly webhookId: string; readonly at: Date }[] = [];
    for (const { id, owner, attempt, next } of waiting) {
      const index = deliveries.findIndex((one) => one.id === id);
      const delivery = deliveries[index];
      if (delivery === undefined || delivery.lease?.owner !== owner) continue;
      if (next.status === "gone") gone.push({ webhookId: delivery.webhookId, at: attempt.at });
      deliveries[index] = {
        ...delivery,
        ...settlementOf(delivery, attempt, next),
        event: next.status === "pending" ? delivery.event : "",
        lease: null,
      };
    }
    const outbox = await trail.after(start.cursor);
    const known = new Set(webhooks.map((webhook) => webhook.id));
    for (const { entry, webhooks: named } of outbox.marked) {
      const event = O.toNullable(eventOf(entry));
      if (event !== null)
        for (const webhookId of named.filter((id) => known.has(id)))
          deliveries.push({
            ...pendingDelivery(entry, webhookId, randomUUID()),
            event: JSON.stringify(event),
            lease: null,
          });
    }
    const kept = trimmed(deliveries, webhooks);
    const changed =
      start !== read || waiting.length > 0 || outbox.cursor !== start.cursor || kept.length !== deliveries.length;
    return { current: { deliveries: kept, cursor: outbox.cursor }, webhooks, gone, changed };
  };

  /** One change of the deliveries (`answer` over them, with the webhooks), then the webhooks found gone disabled. */
  const changeDeliveries = <A>(
    answer: (deliveries: DeliveryEntry[], webhooks: readonly WebhookEntry[]) => { answer: A; changed?: boolean },
  ): TaskEither<DomainError, A> =>
    pipe(
      deliveriesFile.change("writing", async (read) => {
        const { current, webhooks, gone, changed } = await withOutbox(read);
        const answered = answer(current.deliveries, webhooks);
        const next = changed || answered.changed === true ? current : undefined;
        return { next, answer: { answer: answered.answer, gone } };
      }),
      TE.tap(({ gone }) => (gone.length === 0 ? TE.right(undefined) : disable(gone))),
      TE.map(({ answer }) => answer),
    );
  /** Disables the webhooks whose receiver answered 410, from that attempt's time. */
  const disable = (gone: readonly { readonly webhookId: string; readonly at: Date }[]) =>
    changeWebhooks((webhooks) => ({
      webhooks: webhooks.map((webhook) => {
        const at = gone.find((one) => one.webhookId === webhook.id)?.at;
        return at === undefined ? webhook : webhookGone(webhook, at);
      }),
      answer: undefined,
    }));

  /** One change of the webhooks' list: `next` gives the webhooks after it (undefined: nothing changes). */
  const changeWebhooks = <A>(next: (webhooks: readonly WebhookEntry[]) => { webhooks?: WebhookEntry[]; answer: A }) =>
    webhooksFile.change("writing", (current) => {
      const { webhooks, answer } = next(current.webhooks);
      return { next: webhooks === undefined ? undefined : { webhooks }, answer };
    });
  const webhooksAnswer = <A>(answer: (webhooks: readonly WebhookEntry[]) => A) =>
    webhooksFile.read("reading", ({ webhooks }) => answer(webhooks));

  const claimDue = (owner: string, now: Date, leaseUntil: Date, limit: number, busy: readonly string[]) =>
    changeDeliveries((deliveries, webhooks) => {
      const byId = new Map(
        webhooks.filter((webhook) => !busy.includes(webhook.id)).map((webhook) => [webhook.id, webhook]),
      );
      const claimed = claimable(
        deliveries,
        (delivery) => ({ delivery, lease: delivery.lease, webhook: byId.get(delivery.webhookId) }),
        { owner, now, limit },
      ).map(({ index, row: delivery, webhook }): ClaimedDelivery => {
        deliveries[index] = { ...delivery, lease: { owner, until: leaseUntil } };
        return {
          delivery: deliveryOf(delivery),
          webhook: webhookOf(webhook),
          secrets: openSecrets(webhook),
          event: JSON.parse(delivery.event) as ClaimedDelivery["event"],
        };
      });
      return { answer: claimed, changed: claimed.length > 0 };
    });

  return {
    current: async () => (await webhooksNow()).webhooks.map(webhookOf),
    cursor: () => readNow(deliveriesFile, ({ cursor }) => cursor),
    create: (webhook, secrets) =>
      changeWebhooks((webhooks) => ({
        webhooks: [
          ...webhooks,
          { ...webhook, sealed: keyring.seal(JSON.stringify(secrets), associatedData(webhook.id)) },
        ],
        answer: undefined,
      })),
    list: () => webhooksAnswer((webhooks) => webhooks.map(webhookOf)),
    get: (id) => webhooksAnswer((webhooks) => webhooks.map(webhookOf).find((webhook) => webhook.id === id)),
    secrets: (id) =>
      webhooksAnswer((webhooks) => {
        const entry = webhooks.find((webhook) => webhook.id === id);
        return entry === undefined ? undefined : openSecrets(entry);
      }),
    // Its deliveries go with the next change of the deliveries (none is claimed meanwhile: it is not a webhook).
    remove: (id) =>
      changeWebhooks((webhooks) =>
        webhooks.some((webhook) => webhook.id === id)
          ? { webhooks: webhooks.filter((webhook) => webhook.id !== id), answer: true }
          : { answer: false },
      ),
    claim: (owner, now, leaseUntil, limit, busy = []) =>
      pipe(
        webhooksAnswer((webhooks) =>
          webhooks.every((webhook) => webhook.disabledAt !== null || busy.includes(webhook.id)),
        ),
        // Every webhook busy (a commit heard while each one's run goes on): nothing to claim, no file written.
        TE.flatMap((none) => (none ? TE.right([]) : claimDue(owner, now, leaseUntil, limit, busy))),
      ),
    // Written with the next change of the deliveries (a claim, most often: one write per round, not two per
    // delivery), within SETTLEMENTS_WAIT_MS at the latest (what a crash makes a relay send again); at once when the
    // receiver is gone, so that the webhook is disabled now.
    settle: (id, owner, attempt, next) => {
      settlements.push({ id, owner, attempt, next });
      if (next.status === "gone") return changeDeliveries(() => ({ answer: undefined }));
      flush ??= setTimeout(() => {
        flush = undefined;
        // A claim meanwhile wrote them: nothing to do.
        if (settlements.length > 0) void changeDeliveries(() => ({ answer: undefined }))();
      }, SETTLEMENTS_WAIT_MS).unref();
      return TE.right(undefined);
    },
    deliveries: (id, limit, status) =>
      changeDeliveries((deliveries) => ({
        answer: deliveries
          .filter((delivery) => delivery.webhookId === id && (status === undefined || delivery.status === status))
          .reverse()
          .slice(0, limit)
          .map(deliveryOf),
      })),
    // A settled delivery kept no event: it is read from the trail first (outside the lock), then the redelivery is
    // decided over the deliveries as they are under the lock.
    redeliver: (webhookId, deliveryId, at) =>
      pipe(
        deliveriesFile.read("reading", ({ deliveries }) => deliveries.find((one) => one.id === deliveryId)),
        TE.flatMap((found) =>
          TE.tryCatch(
            async () => {
              if (found === undefined || found.event !== "") return found?.event;
              const entry = await trail.entry(found.eventId);
              const event = entry === undefined ? null : O.toNullable(eventOf(entry));
              return event === null ? undefined : JSON.stringify(event);
            },
            (error) => storageFailure(`Storage failure: the audit trail was not read (${String(error)}).`),
          ),
        ),
        TE.flatMap((event) =>
          changeDeliveries((deliveries) => {
            const own = deliveries.filter((one) => one.webhookId === webhookId);
            const redelivery = redeliveryOf(
              deliveryId,
              own.map(deliveryOf),
              event === undefined ? undefined : (JSON.parse(event) as ClaimedDelivery["event"]),
              at,
              randomUUID(),
            );
            if (redelivery._tag !== "queued" || event === undefined) return { answer: redelivery };
            deliveries.push({ ...redelivery.delivery, attempts: [], event, lease: null });
            return { answer: redelivery, changed: true };
          }),
        ),
      ),
    resealSecrets: () =>
      changeWebhooks((webhooks) => {
        const stale = webhooks.filter((webhook) => keyring.needsRotation(webhook.sealed));
        if (stale.length === 0) return { answer: { rotated: 0, total: webhooks.length } };
        return {
          webhooks: webhooks.map((webhook) =>
            keyring.needsRotation(webhook.sealed)
              ? { ...webhook, sealed: keyring.seal(JSON.stringify(openSecrets(webhook)), associatedData(webhook.id)) }
              : webhook,
          ),
          answer: { rotated: stale.length, total: webhooks.length },
        };
      }),
    close: async () => {
      clearTimeout(flush);
      if (settlements.length > 0) await changeDeliveries(() => ({ answer: undefined }))();
      await deliveriesFile.close();
      await webhooksFile.close();
    },
  };
};
