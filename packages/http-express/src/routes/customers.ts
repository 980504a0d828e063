import type { ConnectionService } from "@sdwan-connections/core";
import { Router } from "express";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { respond, sendJson } from "../respond.js";

/** docs/interface.md §2: a partner connection's customers. */
export const customersRoutes = (service: ConnectionService): Router => {
  const router = Router({ caseSensitive: true, strict: false });
  router
    .route("/partner/:alias/customers")
    .get(withFlags([], (req, res) => respond(res, service.listPartnerCustomers(req.params["alias"] as string), (customers) => sendJson(res, 200, customers))))
    .all(methodNotAllowed("GET, HEAD"));
  return router;
};
