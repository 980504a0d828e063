import type { ConnectionService } from "@sdwan-connections/core";
import { Router } from "express";
import { mayRead } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { respond, sendJson } from "../respond.js";

/** The answer of GET /health/connections. */
export const healthAnswer = (intervalMs: number | undefined, connections: readonly unknown[]) => ({
  intervalSeconds: intervalMs === undefined ? null : intervalMs / 1000,
  connections,
});

/** docs/interface.md §1: every connection's last known health, from validations and background checks (any authenticated user; no key in it). */
export const healthRoutes = (service: ConnectionService, intervalMs: number | undefined): Router => {
  const router = Router({ caseSensitive: true, strict: false });
  router
    .route("/health/connections")
    .get(
      withFlags([], (_req, res) => {
        const readable = mayRead(res.locals);
        return respond(res, service.connectionsHealth(), (connections) =>
          sendJson(
            res,
            200,
            healthAnswer(
              intervalMs,
              connections.filter(({ alias }) => readable(alias)),
            ),
          ),
        );
      }),
    )
    .all(methodNotAllowed("GET, HEAD"));
  return router;
};
