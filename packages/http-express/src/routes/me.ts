import { Router } from "express";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { userOf } from "../middleware/request-context.js";
import { sendJson } from "../respond.js";

/**
 * docs/interface.md §5: who the credentials belong to and their role, so a
 * client (the console) can check a sign-in and offer only what the role may do.
 * A user signed in with a bearer token is its principal (`oidc:NAME`). Served without authentication (benchmarks only), everyone is an admin.
 */
export const meRoutes = (): Router => {
  const router = Router({ caseSensitive: true, strict: false });
  router
    .route("/me")
    .get(
      withFlags([], async (_req, res) => {
        const user = userOf(res.locals);
        // A provider's user in no admin or viewer group has no role (null): it may read nothing.
        sendJson(
          res,
          200,
          user === undefined ? { user: "anonymous", role: "admin" } : { user: user.name, role: user.role ?? null },
        );
      }),
    )
    .all(methodNotAllowed("GET, HEAD"));
  return router;
};
