import type { Health as HealthFacade } from "@sdwan-connections/core";
import { Health } from "@sdwan-connections/core/wire";
import type { Router } from "express";
import { mayRead, needs } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { respond, sendJson } from "../respond.js";

/** The answer of GET /health/connections. */
export const healthAnswer = (intervalMs: number | undefined, connections: Health["connections"]): Health => ({
  intervalSeconds: intervalMs === undefined ? null : intervalMs / 1000,
  connections,
});

/** docs/interface.md §1: every connection's last known health, from validations and background checks (any authenticated user; no key in it). */
export const healthRoutes = (
  router: Router,
  health: Pick<HealthFacade, "list">,
  intervalMs: number | undefined,
): void => {
  router
    .route("/health/connections")
    .get(
      needs("any"),
      withFlags([], (_req, res) => {
        const readable = mayRead(res.locals);
        return respond(res, health.list(), (connections) =>
          sendJson(
            res,
            200,
            Health,
            healthAnswer(
              intervalMs,
              connections.filter(({ alias }) => readable(alias)),
            ),
          ),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD"));
};
