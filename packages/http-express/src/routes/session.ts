import { Session } from "@sdwan-connections/core/wire";
import type { Router } from "express";
import * as O from "fp-ts/lib/Option.js";
import { parseBasic } from "../auth/authenticator.js";
import type { SessionTokens } from "../auth/console-session.js";
import { problem } from "../errors.js";
import { needs } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { userOf } from "../middleware/request-context.js";
import { sendJson, sendProblem } from "../respond.js";

/**
 * docs/interface.md §5: a console session for the Basic credentials given (`/me`'s answer plus a
 * token), so the console keeps a token, never the password, for a reload. Only a password starts
 * one: a session does not extend itself. Served without authentication (benchmarks), there is none.
 */
export const sessionRoutes = (router: Router, sessions: SessionTokens | undefined): void => {
  router
    .route("/session")
    .get(
      needs("role"),
      withFlags([], async (req, res) => {
        const user = userOf(res.locals);
        if (sessions === undefined || user === undefined) {
          sendProblem(
            res,
            problem("no-such-endpoint", "This service runs without authentication: there are no sessions."),
          );
          return;
        }
        if (O.isNone(parseBasic(req.headers.authorization))) {
          sendProblem(
            res,
            problem(
              "forbidden",
              "A session starts from a user name and password (Basic credentials), not from another session.",
            ),
          );
          return;
        }
        res.setHeader("Cache-Control", "no-store");
        sendJson(res, 200, Session, { user: user.name, role: user.role ?? null, ...sessions.issue(user.name) });
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD"));
};
