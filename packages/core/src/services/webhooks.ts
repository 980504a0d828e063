import { randomUUID } from "node:crypto";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { pipe } from "fp-ts/lib/function.js";
import { auditEntryId, type Actor } from "../domain/audit.js";
import type { DomainError } from "../domain/errors.js";
import { eventOf } from "../domain/events.js";
import {
  DEFAULT_WEBHOOK_RETRY_S,
  WEBHOOK_ENCODERS,
  decodeDeliveriesQuery,
  decodeWebhookRequest,
  newWebhookSecret,
  nextAfter,
  pingBody,
  succeeded,
  webhookRequest,
  type ClaimedDelivery,
  type Delivery,
  type DeliveryAttempt,
  type EncodedBody,
  type Redelivery,
  type Webhook,
  type WebhookAnswer,
  type WebhookKind,
  type WebhookRequest,
} from "../domain/webhook.js";
import type { AuditLog } from "../ports/audit-log.js";
import type { Clock } from "../ports/clock.js";
import type { WebhookStore } from "../ports/webhook-store.js";
import type { CreatedWebhook } from "../wire/webhooks.js";
import type { WebhookChange } from "./audit-trail.js";
import { everyBeat } from "./beat.js";

/** Sends one signed request to a receiver (at most `timeoutMs`): what it answered, or why nothing came. */
export interface WebhookSender {
  send(request: WebhookRequest, timeoutMs: number): Promise<WebhookAnswer>;
}

// A webhook as created, the only time its secret is shown, is the wire's.
export type { CreatedWebhook };

export interface WebhooksOptions {
  readonly store: WebhookStore;
  readonly sender: WebhookSender;
  readonly clock: Clock;
  /** SDWAN_WEBHOOK_RETRY_S: the waits (s) before each retry. */
  readonly retrySchedule?: readonly number[];
  /** How often an idle relay looks for due deliveries (ms): the fallback of `trail`'s wakeups, and retries' time. */
  readonly pollMs?: number;
  /** The store's audit trail: each commit it tells (of this instance or another) wakes the relay. */
  readonly trail?: Pick<AuditLog, "subscribe">;
  /** Checks a receiver's URL before it is stored (the destination fence, `https:` only unless allowed). */
  readonly admitsUrl?: (url: string) => TE.TaskEither<DomainError, void>;
  readonly random?: () => number;
  /** Told of each attempt made (never a body). */
  readonly onAttempt?: (attempt: DeliveryAttempt & { readonly webhookId: string; readonly eventId: string }) => void;
  /** Records a webhook's change (SPEC §9: audited, never its secret), before the change's answer. */
  readonly audited?: (by: Actor | undefined, action: WebhookChange, webhook: Webhook) => Promise<void>;
  /** Records a delivery sent again (an attempt, its ids in `detail`), before the redelivery's answer. */
  readonly auditedRedelivery?: (
    by: Actor | undefined,
    redelivered: { readonly webhookId: string; readonly deliveryId: string; readonly eventId: string },
  ) => Promise<void>;
  readonly onError?: (error: DomainError) => void;
}

/** 10 s per attempt (SPEC §9). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
// A claim outlives the attempts it covers: another relay takes it over only once its owner is surely gone. An
// attempt begins only with LEASE_SPARE_MS of its lease left: its timeout, and as much again to settle it.
const LEASE_MS = 3 * WEBHOOK_TIMEOUT_MS;
const LEASE_SPARE_MS = 2 * WEBHOOK_TIMEOUT_MS;
const CLAIM_LIMIT = 100;
// Who the trail names for a webhook the relay disabled (its receiver answered 410).
const RELAY: Actor = { name: "webhook-relay" };

/** The webhooks' use cases (admin, SPEC §9) and the relay that delivers their outbox. */
export const createWebhooks = ({
  store,
  sender,
  clock,
  retrySchedule = DEFAULT_WEBHOOK_RETRY_S,
  pollMs = 500,
  trail,
  admitsUrl = () => TE.right(undefined),
  random = Math.random,
  onAttempt,
  audited = async () => {},
  auditedRedelivery = async () => {},
  onError,
}: WebhooksOptions) => {
  const now = () => new Date(clock.now());

  /**
   * One attempt: `requests` posted in order, within one timeout in all (SPEC §9's 10 s per attempt, which the claim's
   * lease outlives), stopping at the first the receiver does not take. Its answer is that one's, or the last's; its
   * latency the sum of the POSTs'.
   */
  const attempt = async ([first, ...rest]: readonly [WebhookRequest, ...WebhookRequest[]]) => {
    const started = clock.now();
    let latencyMs = 0;
    const post = async (request: WebhookRequest): Promise<WebhookAnswer> => {
      const sent = clock.now();
      const left = WEBHOOK_TIMEOUT_MS - (sent - started);
      const answer =
        left <= 0
          ? { _tag: "failed" as const, error: "timeout" }
          : await sender
              .send(request, left)
              .catch((error: unknown): WebhookAnswer => ({ _tag: "failed", error: String(error) }));
      latencyMs += Math.max(0, clock.now() - sent);
      return answer;
    };
    let answer = await post(first);
    for (const request of rest) {
      if (!succeeded(answer)) break;
      answer = await post(request);
    }
    const done: DeliveryAttempt = {
      at: new Date(started),
      status: answer._tag === "answered" ? answer.status : null,
      error: answer._tag === "failed" ? answer.error : null,
      latencyMs,
    };
    return { answer, done };
  };

  /**
   * Makes one attempt and records it; true when the delivery is settled (delivered or dead), not to be tried again.
   * A delivery of several bodies is delivered once the receiver took every one; a retry posts them all again from
   * the first (at least once: an OpenNMS event sent twice reduces into the same alarm, a clear of a cleared alarm
   * changes nothing).
   */
  const deliver = async (owner: string, { delivery, webhook, secrets, event }: ClaimedDelivery): Promise<boolean> => {
    const bodies = WEBHOOK_ENCODERS[webhook.kind](event);
    const [first, ...rest] = bodies;
    if (first === undefined) {
      // Nothing of this kind for this event (an OpenNMS webhook and an event OpenNMS has no UEI for): settled, unsent.
      const skipped = {
        at: now(),
        status: null,
        error: `no ${webhook.kind} form for this event: not sent`,
        latencyMs: 0,
      };
      const settled = await store.settle(delivery.id, owner, skipped, { status: "delivered" })();
      if (E.isLeft(settled)) onError?.(settled.left);
      return true;
    }
    const at = now();
    const request = (body: EncodedBody) => webhookRequest(webhook, secrets, body, at);
    const { answer, done } = await attempt([request(first), ...rest.map(request)]);
    onAttempt?.({ ...done, webhookId: webhook.id, eventId: event.id });
    const next = nextAfter(answer, delivery.attempts.length + 1, now(), retrySchedule, random);
    const settled = await store.settle(delivery.id, owner, done, next)();
    if (E.isLeft(settled)) onError?.(settled.left);
    // The receiver's 410 disabled the webhook: a change no one asked for, audited as the relay's.
    else if (next.status === "gone" && webhook.disabledAt === null) await audited(RELAY, "webhook-disable", webhook);
    return next.status === "delivered" || next.status === "dead";
  };

  /**
   * One relay per instance. Each webhook's claimed run is delivered by a worker of its own, in order, while the
   * other webhooks' go on (a receiver that hangs delays only its own webhook). A look claims what is due for the
   * webhooks with no worker; it runs when a commit over the store is heard (`trail`, this instance's and every
   * other's), and every `pollMs` as the fallback. A wakeup during a look makes it look again (`again`): a commit is
   * never left for the next poll. A worker's end makes one only when a look left its webhook out, or its run was cut
   * short (`missed`): an idle relay's next look is the next commit's.
   */
  const createRelay = () => {
    const owner = randomUUID();
    const workers = new Map<string, Promise<void>>();
    let stopPolling: (() => void) | undefined;
    let looking: Promise<void> | undefined;
    let again = false;
    let missed = false;
    let stopped = true;
    let unsubscribe: Promise<(() => void) | undefined> | undefined;
    /**
     * A run, in order, ended at its first delivery not made. An attempt begins only while the lease still covers a
     * whole attempt and as much again (what a slow machine may take to settle it): the rest of a longer run is
     * claimed again by this owner at the look its end makes, its lease renewed, and no other relay takes it meanwhile.
     */
    const work = async (run: readonly ClaimedDelivery[], leaseUntil: number) => {
      for (const one of run)
        if (clock.now() > leaseUntil - LEASE_SPARE_MS) missed = true;
        else if (stopped || !(await deliver(owner, one))) return;
    };
    const look = async (): Promise<void> => {
      for (;;) {
        const at = now();
        const leaseUntil = at.getTime() + LEASE_MS;
        missed = workers.size > 0;
        const claimed = await store.claim(owner, at, new Date(leaseUntil), CLAIM_LIMIT, [...workers.keys()])();
        if (E.isLeft(claimed)) return onError?.(claimed.left);
        const runs = new Map<string, ClaimedDelivery[]>();
        for (const one of claimed.right)
          if (!workers.has(one.webhook.id)) runs.set(one.webhook.id, [...(runs.get(one.webhook.id) ?? []), one]);
        if (runs.size === 0 || stopped) return;
        for (const [webhookId, run] of runs)
          workers.set(
            webhookId,
            work(run, leaseUntil).finally(() => {
              workers.delete(webhookId);
              if (missed) wake();
            }),
          );
        // Fewer than asked for: every webhook without a worker had its whole run; else the others' come next.
        if (claimed.right.length < CLAIM_LIMIT) return;
      }
    };
    const wake = () => {
      if (stopped) return;
      if (looking !== undefined) {
        again = true;
        return;
      }
      looking = (async () => {
        do {
          again = false;
          await look();
        } while (again && !stopped);
      })().finally(() => {
        looking = undefined;
        if (stopped) return;
        // A wakeup after the last look's end, before this: looked for now, not left for the poll.
        if (again) wake();
      });
    };
    return {
      /** Starts: looks now, then at every commit heard and every `pollMs`. */
      start: () => {
        if (!stopped) return;
        stopped = false;
        unsubscribe = trail
          ?.subscribe((entry) => {
            if (O.isSome(eventOf(entry))) wake();
          })()
          .then((subscribed) => {
            if (E.isRight(subscribed)) return subscribed.right;
            onError?.(subscribed.left);
            return undefined;
          });
        wake();
        // The fallback, on the process's shared beat; a look under way is not asked for another.
        stopPolling = everyBeat(pollMs, () => {
          if (looking === undefined) wake();
        });
      },
      /** Stops, after the attempts under way (a claim left unsettled is taken over once its lease ends). */
      stop: async () => {
        stopped = true;
        stopPolling?.();
        (await unsubscribe)?.();
        await looking;
        await Promise.all(workers.values());
      },
    };
  };

  return {
    /** Creates a webhook for `by`, audited (never its secret): the only answer that holds its secret. */
    create: (input: unknown, by?: Actor): TE.TaskEither<DomainError, CreatedWebhook> =>
      pipe(
        TE.fromEither(decodeWebhookRequest(input)),
        TE.tap(({ url }) => admitsUrl(url)),
        TE.flatMap(({ url, types, kind, credentials }) => {
          const webhook: Webhook = { id: randomUUID(), url, types, kind, createdAt: now(), disabledAt: null };
          const secret = newWebhookSecret();
          return pipe(
            store.create(webhook, { secret, credentials }),
            TE.tap(() => TE.fromTask(() => audited(by, "webhook-create", webhook))),
            TE.map(() => ({ ...webhook, secret })),
          );
        }),
      ),
    list: () => store.list(),
    get: (id: string) => store.get(id),
    /** Removes webhook `id` for `by`, audited; false when unknown. */
    remove: (id: string, by?: Actor): TE.TaskEither<DomainError, boolean> =>
      pipe(
        store.get(id),
        TE.flatMap((webhook) =>
          webhook === undefined
            ? TE.right(false)
            : pipe(
                store.remove(id),
                TE.tap((removed) =>
                  removed ? TE.fromTask(() => audited(by, "webhook-delete", webhook)) : TE.right(undefined),
                ),
              ),
        ),
      ),
    /**
     * Webhook `id`'s newest deliveries (`query.limit` of them, of `query.status` only when given), newest first;
     * undefined when it is unknown.
     */
    deliveries: (
      id: string,
      query: Readonly<Record<string, unknown>>,
    ): TE.TaskEither<DomainError, readonly Delivery[] | undefined> =>
      pipe(
        TE.fromEither(decodeDeliveriesQuery(query)),
        TE.flatMap((decoded) =>
          pipe(
            store.get(id),
            TE.map((webhook) => ({ webhook, decoded })),
          ),
        ),
        TE.flatMap(({ webhook, decoded }) =>
          webhook === undefined ? TE.right(undefined) : store.deliveries(id, decoded.limit, decoded.status),
        ),
      ),
    /** A new attempt of a settled delivery (SPEC §9's redeliver) for `by`, due now, audited; the relays are woken by the caller. */
    redeliver: (id: string, deliveryId: string, by?: Actor): TE.TaskEither<DomainError, Redelivery> =>
      pipe(
        store.redeliver(id, deliveryId, now()),
        TE.tap((redelivery) =>
          redelivery._tag === "queued"
            ? TE.fromTask(() =>
                auditedRedelivery(by, { webhookId: id, deliveryId, eventId: redelivery.delivery.eventId }),
              )
            : TE.right(undefined),
        ),
      ),
    /** Sends a ping now (never through the outbox, never recorded): what the receiver answered. */
    ping: (id: string): TE.TaskEither<DomainError, (DeliveryAttempt & { readonly kind: WebhookKind }) | undefined> =>
      pipe(
        TE.Do,
        TE.bind("webhook", () => store.get(id)),
        TE.bind("secrets", () => store.secrets(id)),
        TE.flatMap(({ webhook, secrets }) =>
          webhook === undefined || secrets === undefined
            ? TE.right(undefined)
            : TE.fromTask(async () => {
                const at = now();
                const pingId = auditEntryId(at);
                const { done } = await attempt([webhookRequest(webhook, secrets, pingBody(webhook, pingId, at), at)]);
                return { ...done, kind: webhook.kind };
              }),
        ),
      ),
    createRelay,
  };
};

export type Webhooks = ReturnType<typeof createWebhooks>;
