import { randomUUID } from "node:crypto";
import * as E from "fp-ts/lib/Either.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { pipe } from "fp-ts/lib/function.js";
import { auditEntryId } from "../domain/audit.js";
import type { DomainError } from "../domain/errors.js";
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
import type { Clock } from "../ports/clock.js";
import type { WebhookStore } from "../ports/webhook-store.js";

/** Sends one signed request to a receiver (at most `timeoutMs`): what it answered, or why nothing came. */
export interface WebhookSender {
  send(request: WebhookRequest, timeoutMs: number): Promise<WebhookAnswer>;
}

/** A webhook as created: the only time its secret is shown. */
export type CreatedWebhook = Webhook & { readonly secret: string };

export interface WebhooksOptions {
  readonly store: WebhookStore;
  readonly sender: WebhookSender;
  readonly clock: Clock;
  /** SDWAN_WEBHOOK_RETRY_S: the waits (s) before each retry. */
  readonly retrySchedule?: readonly number[];
  /** How often an idle relay looks for due deliveries (ms). */
  readonly pollMs?: number;
  /** Checks a receiver's URL before it is stored (the destination fence, `https:` only unless allowed). */
  readonly admitsUrl?: (url: string) => TE.TaskEither<DomainError, void>;
  /** An orchestrator URL for a connection's events (OpenNMS parms), when known. */
  readonly orchestratorUrlOf?: (alias: string) => Promise<string | null>;
  readonly random?: () => number;
  /** Told of each attempt made (never a body). */
  readonly onAttempt?: (attempt: DeliveryAttempt & { readonly webhookId: string; readonly eventId: string }) => void;
  readonly onError?: (error: DomainError) => void;
}

/** 10 s per attempt (SPEC §9). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
// A claim outlives the attempt it covers: another relay takes it over only once its owner is surely gone.
const LEASE_MS = 3 * WEBHOOK_TIMEOUT_MS;
const CLAIM_LIMIT = 100;

/** The webhooks' use cases (admin, SPEC §9) and the relay that delivers their outbox. */
export const createWebhooks = ({
  store,
  sender,
  clock,
  retrySchedule = DEFAULT_WEBHOOK_RETRY_S,
  pollMs = 500,
  admitsUrl = () => TE.right(undefined),
  orchestratorUrlOf = async () => null,
  random = Math.random,
  onAttempt,
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
    const bodies = await WEBHOOK_ENCODERS[webhook.kind](event, {
      orchestratorUrl: () => orchestratorUrlOf(event.subject),
    });
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
    return next.status === "delivered" || next.status === "dead";
  };

  /** One relay per instance: claims due deliveries and makes them, one at a time per webhook, all webhooks at once. */
  const createRelay = () => {
    const owner = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | undefined;
    let stopped = true;
    const round = async (): Promise<void> => {
      for (;;) {
        const at = now();
        const claimed = await store.claim(owner, at, new Date(at.getTime() + LEASE_MS), CLAIM_LIMIT)();
        if (E.isLeft(claimed)) return onError?.(claimed.left);
        if (claimed.right.length === 0 || stopped) return;
        // Every webhook at once; each one's run in order, ended at its first delivery not made (the rest wait for it).
        const runs = new Map<string, ClaimedDelivery[]>();
        for (const one of claimed.right) runs.set(one.webhook.id, [...(runs.get(one.webhook.id) ?? []), one]);
        await Promise.all(
          [...runs.values()].map(async (run) => {
            for (const one of run) if (!(await deliver(owner, one)) || stopped) return;
          }),
        );
      }
    };
    const schedule = () => {
      if (stopped) return;
      timer = setTimeout(() => {
        running = round().finally(schedule);
      }, pollMs);
      timer.unref();
    };
    return {
      /** Starts looking for due deliveries every `pollMs`. */
      start: () => {
        if (!stopped) return;
        stopped = false;
        schedule();
      },
      /** Looks now (after a write), unless a look is under way. */
      poke: () => {
        if (stopped || timer === undefined) return;
        clearTimeout(timer);
        timer = undefined;
        running = (running ?? Promise.resolve()).then(round).finally(schedule);
      },
      /** Stops, after the attempts under way (a claim left unsettled is taken over once its lease ends). */
      stop: async () => {
        stopped = true;
        clearTimeout(timer);
        await running;
      },
    };
  };

  return {
    create: (input: unknown): TE.TaskEither<DomainError, CreatedWebhook> =>
      pipe(
        TE.fromEither(decodeWebhookRequest(input)),
        TE.tap(({ url }) => admitsUrl(url)),
        TE.flatMap(({ url, types, kind, credentials }) => {
          const webhook: Webhook = { id: randomUUID(), url, types, kind, createdAt: now(), disabledAt: null };
          const secret = newWebhookSecret();
          return pipe(
            store.create(webhook, { secret, credentials }),
            TE.map(() => ({ ...webhook, secret })),
          );
        }),
      ),
    list: () => store.list(),
    get: (id: string) => store.get(id),
    remove: (id: string) => store.remove(id),
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
    /** A new attempt of a settled delivery (SPEC §9's redeliver), due now; the relays are woken by the caller. */
    redeliver: (id: string, deliveryId: string): TE.TaskEither<DomainError, Redelivery> =>
      store.redeliver(id, deliveryId, now()),
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
