import type { Audit } from "@sdwan-connections/core";
import { AuditPage } from "@sdwan-connections/core/wire";
import type { Router } from "express";
import { problem } from "../errors.js";
import { accessOfRequest, mayRead, needs } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { userOf } from "../middleware/request-context.js";
import { respond, sendJson, sendProblem } from "../respond.js";

/**
 * docs/interface.md §1: the audit trail, newest first, a page at a time; admins only (it names every user's writes),
 * and a principal without a role, for the connections its grants let it read (a page, and its cursor, of those only).
 */
export const auditRoutes = (router: Router, audit: Pick<Audit, "list">): void => {
  router
    .route("/audit")
    .get(needs("any"), async (req, res) => {
      const user = userOf(res.locals);
      const access = accessOfRequest(res.locals);
      // A principal without a role whose grants let it read connections sees their entries (SPEC §11); no one else.
      if (user !== undefined && user.role !== "admin" && access?.granted("read") !== true) {
        sendProblem(res, problem("forbidden", "The audit trail is for admins only."));
        return;
      }
      // Filtered as it is read, so the page and its cursor tell nothing of what the principal may not read.
      await respond(res, audit.list(req.query, access === undefined ? undefined : mayRead(res.locals)), (page) =>
        sendJson(res, 200, AuditPage, page),
      );
    })
    .all(needs("role"), methodNotAllowed("GET, HEAD"));
};
