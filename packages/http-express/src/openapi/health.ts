import { HEALTH_HISTORY } from "@sdwan-connections/core";
import { Health } from "@sdwan-connections/core/wire";
import type { Notes } from "./schema-of.js";
import { commonErrors, json } from "./shared.js";

/** Part of openApiDocument (../openapi.ts): GET /health/connections and the ConnectionHealth schema (routes/health.ts). */

export const healthPaths = {
  "/health/connections": {
    get: {
      operationId: "listConnectionsHealth",
      summary:
        "Every connection's last known health: its state (valid, invalid, unreachable, unknown until checked), since when, and its last checks, newest first. Every validation (GET /connections/{alias}) is a check; background checks run every SDWAN_HEALTH_INTERVAL_S seconds (300 by default; 0 turns them off). A deleted connection's health goes with it.",
      responses: {
        "200": json(
          "The interval (null when the checks are off) and one entry per connection, sorted by alias.",
          Health,
        ),
        ...commonErrors,
      },
    },
  },
} as const;

export const healthNotes: Notes = {
  "ConnectionHealth.since": "When the state began (null: unknown).",
  "ConnectionHealth.checks": { maxItems: HEALTH_HISTORY },
  "HealthCheck.latencyMs": { minimum: 0 },
};
