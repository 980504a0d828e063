import { CreateWebhookRequest, DELIVERIES_PAGE } from "@sdwan-connections/core";
import { CreatedWebhook, Delivery, DeliveryStatus, PingAnswer, Webhook } from "@sdwan-connections/core/wire";
import * as t from "io-ts";
import type { Notes } from "./schema-of.js";
import { commonErrors, created, json, jsonBody, problem, writeErrors } from "./shared.js";

/** Part of openApiDocument (../openapi.ts): Webhooks' paths (with their deliveries) and schemas (routes/webhooks.ts). */

const webhookIdParameter = {
  name: "id",
  in: "path",
  required: true,
  description: "The webhook's id.",
  schema: { type: "string" },
} as const;

const adminsOnly = problem("Only admins may manage webhooks.");
const noSuchWebhook = problem("There is no such webhook.");

export const webhooksPaths = {
  "/webhooks": {
    get: {
      operationId: "listWebhooks",
      summary: "The webhooks, oldest first; never a secret. Admins only.",
      responses: {
        "200": json("Every webhook.", t.array(Webhook)),
        ...commonErrors,
        "403": adminsOnly,
      },
    },
    post: {
      operationId: "createWebhook",
      summary:
        "Creates a webhook: every event of its types is POSTed to the URL at least once, in order, signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). The secret is in this answer only; the store keeps it sealed. Admins only.",
      requestBody: jsonBody(CreateWebhookRequest),
      responses: {
        "201": created("The webhook, with its signing secret (never cached).", CreatedWebhook),
        ...commonErrors,
        "403": adminsOnly,
        "413": writeErrors["413"],
        "415": writeErrors["415"],
      },
    },
  },
  "/webhooks/{id}": {
    parameters: [webhookIdParameter],
    get: {
      operationId: "getWebhook",
      summary: "One webhook; never its secret. Admins only.",
      responses: {
        "200": json("The webhook.", Webhook),
        ...commonErrors,
        "403": adminsOnly,
        "404": noSuchWebhook,
      },
    },
    delete: {
      operationId: "deleteWebhook",
      summary: "Deletes a webhook and its pending deliveries. Admins only.",
      responses: {
        "204": { description: "Deleted." },
        ...commonErrors,
        "403": adminsOnly,
        "404": noSuchWebhook,
      },
    },
  },
  "/webhooks/{id}/ping": {
    parameters: [webhookIdParameter],
    post: {
      operationId: "pingWebhook",
      summary:
        "Sends a signed ping (type org.sdwan-connections.webhook.ping; never in the event log nor the deliveries) now, and answers what the receiver said. Admins only.",
      responses: {
        "200": json("The attempt.", PingAnswer),
        ...commonErrors,
        "403": adminsOnly,
        "404": noSuchWebhook,
      },
    },
  },
  "/webhooks/{id}/deliveries": {
    parameters: [webhookIdParameter],
    get: {
      operationId: "listWebhookDeliveries",
      summary:
        "A webhook's newest deliveries, newest first: status and each attempt's answer and latency, never a body. Admins only.",
      parameters: [
        {
          name: "limit",
          in: "query",
          required: false,
          schema: { type: "integer", minimum: 1, maximum: DELIVERIES_PAGE.max, default: DELIVERIES_PAGE.default },
        },
        {
          name: "status",
          in: "query",
          required: false,
          description: "Only the deliveries in this state (e.g. `dead`, to send them again).",
          schema: DeliveryStatus,
        },
      ],
      responses: {
        "200": json("The deliveries.", t.array(Delivery)),
        ...commonErrors,
        "403": adminsOnly,
        "404": noSuchWebhook,
      },
    },
  },
  "/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
    parameters: [
      webhookIdParameter,
      {
        name: "deliveryId",
        in: "path",
        required: true,
        description: "The delivery's id.",
        schema: { type: "string" },
      },
    ],
    post: {
      operationId: "redeliverWebhookDelivery",
      summary:
        "Sends a delivered or dead delivery's event again: a new pending delivery of it (the same webhook-id, so receivers dedupe), after the webhook's other deliveries. Audited (webhook-redeliver). Admins only.",
      responses: {
        "202": json("The new delivery, pending.", Delivery),
        ...commonErrors,
        "403": adminsOnly,
        "404": problem("There is no such webhook, or it has no delivery with this id (delivery-not-found)."),
        "409": problem("The delivery, or a redelivery of its event, is still pending (delivery-pending)."),
        "410": problem("The delivery's event is no longer kept by the audit trail (delivery-event-expired)."),
      },
    },
  },
} as const;

export const webhooksNotes: Notes = {
  "Webhook.id": { format: "uuid" },
  "Webhook.disabledAt": "When the receiver answered 410 Gone: nothing is delivered from then on.",
  "CreatedWebhook.secret": {
    pattern: "^whsec_",
    description: "The signing secret (whsec_ + base64 of its bytes): shown in this answer only.",
  },
  "DeliveryAttempt.status": "The receiver's HTTP status; null when none came.",
  "DeliveryAttempt.error": "Why no answer came (a network error code, timeout).",
  "Delivery.id": { format: "uuid" },
  "Delivery.webhookId": { format: "uuid" },
  "Delivery.eventId": "The event's id (the audit entry's): the webhook-id header.",
  "Delivery.nextAttemptAt": "When it is tried next (pending), or was settled.",
  "CreateWebhookRequest.url": {
    maxLength: 2048,
    description:
      "The receiver: https (http only to the hosts SDWAN_WEBHOOK_ALLOW_HTTP names, or any when it is true); the destination fence applies.",
  },
  "CreateWebhookRequest.types": "Event types, `*` a wildcard (e.g. connection.health.*); every event when left out.",
  "CreateWebhookRequest.kind": { default: "cloudevents" },
  "CreateWebhookRequest.username": "kind opennms only: Basic credentials for OpenNMS's REST API.",
  "CreateWebhookRequest.password": { writeOnly: true, description: "kind opennms only; sealed at rest." },
};
