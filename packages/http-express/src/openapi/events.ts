import { EVENT_TYPES } from "@sdwan-connections/core";
import { commonErrors, problem } from "./shared.js";

/** Part of openApiDocument (../openapi.ts): GET /events, the Server-Sent Events stream (routes/events.ts). */

export const eventsPaths = {
  "/events": {
    get: {
      operationId: "followEvents",
      summary:
        "The event log (the audit trail's changes, health state changes and key-expiry warnings) as Server-Sent Events, any authenticated user: what came after Last-Event-ID first, then every new event as it is written, on any instance. Each event is `id:` (the audit id), `event:` (the type without `org.sdwan-connections.`) and `data:` (a CloudEvents 1.0 JSON event); `event: reset` when the Last-Event-ID is older than the oldest entry kept. A comment line at least every 15 s; never compressed. At most SDWAN_EVENTS_MAX_STREAMS streams per instance, a tenth of them per principal; a replay is read page by page as the client takes it; an open stream ends within a second of its token's revocation or expiry and narrows with its grants; a shutdown ends them first.",
      parameters: [
        {
          name: "types",
          in: "query",
          required: false,
          description: `Only these types, comma-separated, \`*\` a wildcard (e.g. \`connection.health.*\`); each must name a known type: ${EVENT_TYPES.join(", ")}.`,
          schema: { type: "string" },
        },
        {
          name: "alias",
          in: "query",
          required: false,
          description: "Only the events of connections whose alias matches this glob (any case, `*` a wildcard).",
          schema: { type: "string", pattern: "^[A-Za-z0-9._*-]{1,64}$" },
        },
        {
          name: "lastEventId",
          in: "query",
          required: false,
          description:
            "As the Last-Event-ID header (which wins when both are given), for clients that cannot set headers.",
          schema: { type: "string" },
        },
        {
          name: "Last-Event-ID",
          in: "header",
          required: false,
          description: "The id of the last event the client has: what came after it is sent first.",
          schema: { type: "string" },
        },
      ],
      responses: {
        "200": {
          description:
            "An endless text/event-stream. Each event's `data:` is one CloudEvent: `specversion` 1.0, `id` (the audit id), `source`, `type` (org.sdwan-connections.connection.added|updated|deleted with data {version, fields, actor, forced}; org.sdwan-connections.connection.health.changed with data {from, to, reason, checkedAt}; org.sdwan-connections.connection.key.expiring|expired with data {expiresAt, daysLeft, source}; org.sdwan-connections.connection.key.renewed (the key renewed, a new version, actor `renewal`) and org.sdwan-connections.connection.key.renewalFailed (with the reason; the expiry warnings go on); every data also orchestratorUrl, the connection's as it was, when known), `subject` (the alias), `time`, `datacontenttype` application/json. Never a key.",
          content: { "text/event-stream": { schema: { type: "string" } } },
        },
        ...commonErrors,
        "429": {
          ...problem(
            "Too many failed logins from this client, or this instance already serves SDWAN_EVENTS_MAX_STREAMS event streams (or a tenth of them to this principal).",
          ),
          headers: commonErrors["429"].headers,
        },
        "503": problem("The connection store cannot be used right now, or the service is shutting down."),
      },
    },
  },
} as const;
