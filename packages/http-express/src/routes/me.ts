import { Router } from "express";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { userOf } from "../middleware/request-context.js";
import { sendJson } from "../respond.js";

/**
 * docs/interface.md §5: who the credentials belong to and their role, so a
 * client (the console) can check a sign-in and offer only what the role may do.
 * Served without authentication (benchmarks only), everyone is an admin.
 */
export const meRoutes = (): Router => {
  const router = Router({ caseSensitive: true, strict: false });
  router
    .route("/me")
    .get(
      withFlags([], async (_req, res) => {
        const user = userOf(res.locals);
        sendJson(res, 200, { user: user?.name ?? "anonymous", role: user?.role ?? "admin" });
      }),
    )
    .all(methodNotAllowed("GET, HEAD"));
  return router;
};
