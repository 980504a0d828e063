import { createHmac, randomBytes } from "node:crypto";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { pipe } from "fp-ts/lib/function.js";
import * as t from "io-ts";
import type { AuditEntry } from "./audit.js";
import { orchestratorUrlRule } from "./codecs.js";
import { decodeInput, decodeQuery, oneOf, strictObject } from "./decode.js";
import { invalidInput, type DomainError } from "./errors.js";
import {
  EVENT_SOURCE,
  EVENT_TYPE_PREFIX,
  eventOf,
  eventTypeOf,
  isEventTypePattern,
  type CloudEvent,
} from "./events.js";
import { compileGlob } from "./glob.js";
import { opennmsEvents, opennmsPing } from "./opennms-event.js";
import {
  DELIVERY_STATUSES,
  WEBHOOK_KINDS,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryStatus,
  type Webhook,
  type WebhookKind,
} from "../wire/webhooks.js";

// What a webhook, a delivery and an attempt are is what the REST API answers of them: the wire's codecs.
export { DELIVERY_STATUSES, WEBHOOK_KINDS };
export type { Delivery, DeliveryAttempt, DeliveryStatus, Webhook, WebhookKind };

/** What a webhook keeps sealed at rest (as apiKeys are): the signing secret, and an `opennms` kind's Basic credentials. */
export interface WebhookSecrets {
  /** `whsec_` + base64 of the signing key's bytes (Standard Webhooks). */
  readonly secret: string;
  readonly credentials: { readonly username: string; readonly password: string } | null;
}

/**
 * What asking for a new attempt of a delivery gave (SPEC §9's redeliver): a new pending delivery of the same event
 * (same `webhook-id`), queued after the webhook's other pending ones; or why not: no such webhook or delivery of it,
 * the delivery (or an earlier redelivery of its event to this webhook) still pending, or its event no longer kept
 * (the embedded store keeps a settled delivery's event in the audit trail only, whose retention may have dropped it).
 */
export type Redelivery =
  | { readonly _tag: "queued"; readonly delivery: Delivery }
  | { readonly _tag: "unknown" }
  | { readonly _tag: "pending" }
  | { readonly _tag: "expired" };

/**
 * The redelivery of `delivery` (its webhook's deliveries, `all`, oldest first, and its event when still kept) as a
 * store decides it: the rule every store binds to its medium. `newId` names the new delivery, due at `at`.
 */
export const redeliveryOf = (
  deliveryId: string,
  all: readonly Delivery[],
  event: CloudEvent | undefined,
  at: Date,
  newId: string,
): Redelivery => {
  const delivery = all.find((one) => one.id === deliveryId);
  if (delivery === undefined) return { _tag: "unknown" };
  if (all.some((one) => one.eventId === delivery.eventId && one.status === "pending")) return { _tag: "pending" };
  if (event === undefined) return { _tag: "expired" };
  return {
    _tag: "queued",
    delivery: {
      id: newId,
      webhookId: delivery.webhookId,
      eventId: delivery.eventId,
      status: "pending",
      nextAttemptAt: at,
      attempts: [],
    },
  };
};

/** Settled (delivered or dead) deliveries a store keeps per webhook, the newest: its history. Pending ones are all kept. */
export const WEBHOOK_HISTORY = 100;

/** Of `deliveries` (oldest first), those a store keeps: every pending one, and per webhook its newest settled ones. */
export const withinHistory = <A>(
  deliveries: readonly A[],
  deliveryOf: (one: A) => Pick<Delivery, "webhookId" | "status">,
): A[] => {
  const settled = new Map<string, number>();
  return deliveries
    .toReversed()
    .filter((one) => {
      const { webhookId, status } = deliveryOf(one);
      if (status === "pending") return true;
      const count = (settled.get(webhookId) ?? 0) + 1;
      settled.set(webhookId, count);
      return count <= WEBHOOK_HISTORY;
    })
    .reverse();
};

/** A delivery a relay claimed: what it needs to make the attempt. */
export interface ClaimedDelivery {
  readonly delivery: Delivery;
  readonly webhook: Webhook;
  readonly secrets: WebhookSecrets;
  readonly event: CloudEvent;
}

/** What happens to a delivery after an attempt. */
export type DeliveryNext =
  | { readonly status: "pending"; readonly at: Date }
  | { readonly status: "delivered" | "dead" }
  | { readonly status: "gone" };

const SECRET_PREFIX = "whsec_";

/** A new signing secret: 32 random bytes, as Standard Webhooks writes them. */
export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the secret's bytes (Standard Webhooks). */
export const webhookSignature = (secret: string, id: string, timestamp: number, body: string): string =>
  `v1,${createHmac("sha256", Buffer.from(secret.slice(SECRET_PREFIX.length), "base64"))
    .update(`${id}.${timestamp}.${body}`)
    .digest("base64")}`;

/**
 * How a webhook reads in the audit trail: `webhook:<id> <kind> <origin>`. The URL's origin only: its path or query
 * may hold the receiver's own token (as chat services' hook URLs do), which the trail, read beyond `GET /webhooks`'s
 * readers in logs and exports, must not keep.
 */
export const webhookAuditDetail = ({ id, kind, url }: Pick<Webhook, "id" | "kind" | "url">): string =>
  `webhook:${id} ${kind} ${URL.parse(url)?.origin ?? "?"}`;

/** The events a webhook wants. */
export const webhookSelects =
  (webhook: Webhook) =>
  (event: CloudEvent): boolean =>
    webhook.types.some((pattern) => compileGlob(pattern).test(eventTypeOf(event)));

/** The webhooks an audit entry is delivered to (its event, when it is one, to each enabled webhook wanting it). */
export const webhooksFor = (entry: AuditEntry, webhooks: readonly Webhook[]): readonly Webhook[] =>
  // Without webhooks, no event is made (each entry of a round would make one for nothing).
  pipe(
    webhooks.length === 0 ? O.none : eventOf(entry),
    O.match(
      () => [],
      (event) => webhooks.filter((webhook) => webhook.disabledAt === null && webhookSelects(webhook)(event)),
    ),
  );

/** One body to POST, as a kind writes it: its `webhook-id`, content type and text. */
export interface EncodedBody {
  readonly id: string;
  readonly contentType: string;
  readonly body: string;
}

/**
 * A CloudEvent posted in structured mode: its HTTP binding (§3.2) types the body as the event format's media type, by
 * which a CloudEvents receiver (an SDK, Knative, Event Grid) tells it from binary mode's bare `data`.
 */
const CLOUDEVENT_CONTENT_TYPE = "application/cloudevents+json; charset=utf-8";

/**
 * How each kind writes an event: the bodies one delivery of it posts, in order (none: the kind sends nothing for
 * it). The one table a new kind goes into. A CloudEvent is one body (`webhook-id` the event id); an OpenNMS event
 * carries one clear key, so an event that ends several alarms, or ends one and raises another, is several, each
 * with its own `webhook-id` (the OpenNMS event's uuid), so a receiver deduping on it keeps them all. Everything a
 * body says comes from the event (SPEC §9: never from the store at delivery time).
 */
export const WEBHOOK_ENCODERS: Record<WebhookKind, (event: CloudEvent) => readonly EncodedBody[]> = {
  cloudevents: (event) => [{ id: event.id, contentType: CLOUDEVENT_CONTENT_TYPE, body: JSON.stringify(event) }],
  opennms: (event) =>
    opennmsEvents(event).map(({ uuid, xml }) => ({
      id: uuid,
      contentType: "application/xml",
      body: xml,
    })),
};

/** A ping's body: a CloudEvent of its own type (never in the event log), or the OpenNMS event that names it. */
export const pingBody = (webhook: Webhook, id: string, at: Date): EncodedBody =>
  webhook.kind === "cloudevents"
    ? {
        id,
        contentType: CLOUDEVENT_CONTENT_TYPE,
        body: JSON.stringify({
          specversion: "1.0",
          id,
          source: EVENT_SOURCE,
          subject: webhook.id,
          type: `${EVENT_TYPE_PREFIX}webhook.ping`,
          time: at.toISOString(),
          datacontenttype: "application/json",
          data: {},
        }),
      }
    : { id, contentType: "application/xml", body: opennmsPing(id, at, webhook.id).xml };

/** One POST to a receiver, signed: what a `WebhookSender` sends. */
export interface WebhookRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The signed request for `body`, sent at `at`. */
export const webhookRequest = (
  webhook: Webhook,
  secrets: WebhookSecrets,
  { id, contentType, body }: EncodedBody,
  at: Date,
): WebhookRequest => {
  const timestamp = Math.floor(at.getTime() / 1000);
  const basic =
    secrets.credentials === null
      ? {}
      : {
          authorization: `Basic ${Buffer.from(`${secrets.credentials.username}:${secrets.credentials.password}`).toString("base64")}`,
        };
  return {
    url: webhook.url,
    body,
    headers: {
      "content-type": contentType,
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": webhookSignature(secrets.secret, id, timestamp, body),
      ...basic,
    },
  };
};

/** What a receiver answered: its status and `Retry-After` (ms), or the network error. */
export type WebhookAnswer =
  | { readonly _tag: "answered"; readonly status: number; readonly retryAfterMs: number | null }
  | { readonly _tag: "failed"; readonly error: string };

/** Whether the receiver took the request (2xx). */
export const succeeded = (answer: WebhookAnswer): boolean =>
  answer._tag === "answered" && answer.status >= 200 && answer.status < 300;

/** The default SDWAN_WEBHOOK_RETRY_S: the waits (s) before each retry; after the last, the delivery is dead. */
export const DEFAULT_WEBHOOK_RETRY_S: readonly number[] = [10, 60, 300, 1800, 7200, 21600, 86400];

/**
 * What follows an answer, for a delivery tried `tried` times so far (this attempt included): 2xx delivered, 410
 * gone (the webhook is disabled), network errors, 408, 429 and 5xx retried after the schedule's wait (±20 %
 * jitter; a longer Retry-After wins) until the schedule is over (dead), any other status dead.
 */
export const nextAfter = (
  answer: WebhookAnswer,
  tried: number,
  at: Date,
  schedule: readonly number[],
  random: () => number,
): DeliveryNext => {
  if (succeeded(answer)) return { status: "delivered" };
  if (answer._tag === "answered") {
    if (answer.status === 410) return { status: "gone" };
    const retried = answer.status === 408 || answer.status === 429 || answer.status >= 500;
    if (!retried) return { status: "dead" };
  }
  const wait = schedule[tried - 1];
  if (wait === undefined) return { status: "dead" };
  const jittered = wait * 1000 * (0.8 + 0.4 * random());
  const retryAfter = answer._tag === "answered" ? (answer.retryAfterMs ?? 0) : 0;
  return { status: "pending", at: new Date(at.getTime() + Math.max(jittered, retryAfter)) };
};

const EventTypePattern = new t.Type<string, string, unknown>(
  "EventTypePattern",
  (input): input is string => typeof input === "string",
  (input, context) => {
    const pattern = typeof input === "string" ? input.replace(EVENT_TYPE_PREFIX, "") : undefined;
    return pattern !== undefined && isEventTypePattern(pattern)
      ? t.success(pattern)
      : t.failure(input, context, "must be an event type or a pattern of them (`*` a wildcard)");
  },
  String,
);

// Held to an orchestrator URL's rule and kept as written: a form the URL parser would quietly repair (`https:host`)
// or a fragment is refused, never stored otherwise than it was sent.
const WebhookUrl = new t.Type<string, string, unknown>(
  "WebhookUrl",
  (input): input is string => typeof input === "string",
  (input, context) => {
    const refused = typeof input === "string" ? orchestratorUrlRule(input) : "must be a string";
    return refused === undefined ? t.success(input as string) : t.failure(input, context, refused);
  },
  String,
);

const Credential = t.refinement(
  t.string,
  (value) => value.length > 0 && value.length <= 256,
  "a non-empty string of at most 256 characters",
);

const CreateWebhookProps = {
  url: WebhookUrl,
  // An empty list is refused, not taken for every event: a filter that came out empty never means "all of them".
  types: t.refinement(
    t.array(EventTypePattern),
    (types) => types.length > 0,
    "a list of at least one event type (left out: every event)",
  ),
  kind: oneOf(WEBHOOK_KINDS),
  username: Credential,
  password: Credential,
};

/** POST /webhooks's body, before the checks across its fields (`decodeWebhookRequest`). */
export const CreateWebhookRequest = strictObject(
  "CreateWebhookRequest",
  CreateWebhookProps,
  t.intersection([
    t.type({ url: CreateWebhookProps.url }),
    t.partial({
      types: CreateWebhookProps.types,
      kind: CreateWebhookProps.kind,
      username: CreateWebhookProps.username,
      password: CreateWebhookProps.password,
    }),
  ]),
);

/** A webhook to create: what POST /webhooks gives, checked. */
export interface WebhookRequestBody {
  readonly url: string;
  readonly types: readonly string[];
  readonly kind: WebhookKind;
  readonly credentials: WebhookSecrets["credentials"];
}

/**
 * POST /webhooks's body: `url`, `types` (default every event), `kind` (default `cloudevents`); `username` and
 * `password` both, for the `opennms` kind only (OpenNMS's REST API wants Basic credentials).
 */
export const decodeWebhookRequest = (input: unknown): E.Either<DomainError, WebhookRequestBody> =>
  pipe(
    decodeInput(CreateWebhookRequest, "body")(input),
    E.flatMap(({ url, types, kind = "cloudevents", username, password }) => {
      const opennms = kind === "opennms";
      const both = username !== undefined && password !== undefined;
      const none = username === undefined && password === undefined;
      if (opennms ? !both : !none)
        return E.left(
          invalidInput([
            {
              field: "username",
              message: opennms
                ? "and password are both needed by the opennms kind"
                : "and password are for the opennms kind only",
            },
          ]),
        );
      return E.right({
        url,
        types: types ?? ["*"],
        kind,
        credentials: both ? { username, password } : null,
      });
    }),
  );

/** GET /webhooks/{id}/deliveries's page size: `limit` from 1 to 100, 20 when not given. */
export const DELIVERIES_PAGE = { default: 20, max: 100 } as const;
const DeliveriesQuery = t.partial({
  limit: t.refinement(
    t.string,
    (raw) => /^\d{1,3}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= DELIVERIES_PAGE.max,
    "a whole number from 1 to 100",
  ),
  status: oneOf(DELIVERY_STATUSES),
});
const DELIVERIES_QUERY_NAMES = ["limit", "status"];

/** Which deliveries to list: the newest `limit`, of one `status` when given. */
export interface DeliveriesQuery {
  readonly limit: number;
  readonly status?: DeliveryStatus;
}

/** The deliveries' query from a query string (`limit`, `status`); an unknown name is refused without being echoed. */
export const decodeDeliveriesQuery = (
  input: Readonly<Record<string, unknown>>,
): E.Either<DomainError, DeliveriesQuery> =>
  Object.keys(input).some((name) => !DELIVERIES_QUERY_NAMES.includes(name))
    ? E.left(
        invalidInput([
          {
            field: "query",
            message: `holds an option deliveries do not know (known: ${DELIVERIES_QUERY_NAMES.join(", ")})`,
          },
        ]),
      )
    : pipe(
        decodeQuery(DeliveriesQuery)(input),
        E.map(({ limit, status }) => ({
          limit: limit === undefined ? DELIVERIES_PAGE.default : Number(limit),
          ...(status === undefined ? {} : { status }),
        })),
      );
