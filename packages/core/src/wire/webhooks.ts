import * as t from "io-ts";
import { IntegerCodec, IsoTimeCodec } from "../domain/codecs.js";
import { oneOf } from "../domain/decode.js";

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/** How a webhook writes its events: CloudEvents JSON, or OpenNMS events (XML). */
export const WEBHOOK_KINDS = ["cloudevents", "opennms"] as const;
export const WebhookKind = oneOf(WEBHOOK_KINDS, "WebhookKind");
export type WebhookKind = t.TypeOf<typeof WebhookKind>;

export const DELIVERY_STATUSES = ["pending", "delivered", "dead"] as const;
export const DeliveryStatus = oneOf(DELIVERY_STATUSES, "DeliveryStatus");
export type DeliveryStatus = t.TypeOf<typeof DeliveryStatus>;

/** A webhook as `GET /webhooks` lists it (SPEC §9): never its secret nor an OpenNMS password. */
export const Webhook = t.type(
  {
    id: t.string,
    url: t.string,
    /** Event type patterns (without the prefix, `*` any run of characters); `["*"]` is every event. */
    types: t.readonlyArray(t.string),
    kind: WebhookKind,
    createdAt: IsoTimeCodec,
    /** When a receiver answered 410 Gone: nothing is delivered to it from then on. */
    disabledAt: nullable(IsoTimeCodec),
  },
  "Webhook",
);
export type Webhook = t.TypeOf<typeof Webhook>;

/** The answer of a creation, the only one with the signing secret (`whsec_…`). */
export const CreatedWebhook = t.intersection([Webhook, t.type({ secret: t.string })], "CreatedWebhook");
export type CreatedWebhook = t.TypeOf<typeof CreatedWebhook>;

/** One try at a delivery: the receiver's status (null when none came: then the error), and how long it took. Never a body. */
export const DeliveryAttempt = t.type(
  { at: IsoTimeCodec, status: nullable(IntegerCodec), error: nullable(t.string), latencyMs: t.number },
  "DeliveryAttempt",
);
export type DeliveryAttempt = t.TypeOf<typeof DeliveryAttempt>;

/** The answer of `POST /webhooks/{id}/ping`: the attempt, and the kind of body it sent. */
export const PingAnswer = t.intersection([DeliveryAttempt, t.type({ kind: WebhookKind })], "PingAnswer");
export type PingAnswer = t.TypeOf<typeof PingAnswer>;

/** One event to one webhook (`GET /webhooks/{id}/deliveries`, a redelivery's answer): its status and its attempts. */
export const Delivery = t.type(
  {
    id: t.string,
    webhookId: t.string,
    /** The event's id, and the `webhook-id` header. */
    eventId: t.string,
    status: DeliveryStatus,
    /** When it is due next (pending), or was settled. */
    nextAttemptAt: IsoTimeCodec,
    attempts: t.readonlyArray(DeliveryAttempt),
  },
  "Delivery",
);
export type Delivery = t.TypeOf<typeof Delivery>;
