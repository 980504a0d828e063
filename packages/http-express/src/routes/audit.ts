import type { ConnectionService } from "@sdwan-connections/core";
import { Router } from "express";
import { problem } from "../errors.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { userOf } from "../middleware/request-context.js";
import { respond, sendJson, sendProblem } from "../respond.js";

/** docs/interface.md §1: the audit trail, newest first, a page at a time; admins only (it names every user's writes). */
export const auditRoutes = (service: ConnectionService): Router => {
  const router = Router({ caseSensitive: true, strict: false });
  router
    .route("/audit")
    .get(async (req, res) => {
      if (userOf(res.locals)?.role === "viewer") {
        sendProblem(res, problem("forbidden", "The audit trail is for admins only."));
        return;
      }
      await respond(res, service.listAudit(req.query), (page) => sendJson(res, 200, page));
    })
    .all(methodNotAllowed("GET, HEAD"));
  return router;
};
