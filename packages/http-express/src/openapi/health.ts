import { HEALTH_CHECK_OUTCOMES, HEALTH_HISTORY, HEALTH_STATES } from "@sdwan-connections/core";
import { commonErrors } from "./shared.js";

/** Part of openApiDocument (../openapi.ts): GET /health/connections and the ConnectionHealth schema (routes/health.ts). */

export const healthPaths = {
  "/health/connections": {
    get: {
      operationId: "listConnectionsHealth",
      summary:
        "Every connection's last known health: its state (valid, invalid, unreachable, unknown until checked), since when, and its last checks, newest first. Every validation (GET /connections/{alias}) is a check; background checks run every SDWAN_HEALTH_INTERVAL_S seconds (300 by default; 0 turns them off). A deleted connection's health goes with it.",
      responses: {
        "200": {
          description: "The interval (null when the checks are off) and one entry per connection, sorted by alias.",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["intervalSeconds", "connections"],
                additionalProperties: false,
                properties: {
                  intervalSeconds: { type: ["integer", "null"] },
                  connections: { type: "array", items: { $ref: "#/components/schemas/ConnectionHealth" } },
                },
              },
            },
          },
        },
        ...commonErrors,
      },
    },
  },
} as const;

export const healthSchemas = {
  ConnectionHealth: {
    type: "object",
    additionalProperties: false,
    required: ["alias", "state", "since", "checks"],
    properties: {
      alias: { $ref: "#/components/schemas/Alias" },
      state: { type: "string", enum: HEALTH_STATES },
      since: {
        type: ["string", "null"],
        format: "date-time",
        description: "When the state began (null: unknown).",
      },
      checks: {
        type: "array",
        maxItems: HEALTH_HISTORY,
        items: {
          type: "object",
          additionalProperties: false,
          required: ["at", "outcome", "latencyMs", "reason"],
          properties: {
            at: { type: "string", format: "date-time" },
            outcome: { type: "string", enum: HEALTH_CHECK_OUTCOMES },
            latencyMs: { type: "integer", minimum: 0 },
            reason: { type: ["string", "null"] },
          },
        },
      },
    },
  },
} as const;
