import type { Connections } from "@sdwan-connections/core";
import type { Router } from "express";
import { needs } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { sendRepresentation } from "../representation.js";
import { respond } from "../respond.js";

/** docs/interface.md §2: a partner connection's customers. */
export const customersRoutes = (router: Router, connections: Pick<Connections, "customers">): void => {
  router
    .route("/partner/:alias/customers")
    .get(
      needs({ connection: "use" }),
      withFlags([], (req, res) =>
        // The customers cache hands back the same list until it refills: its JSON made once, and one compression per encoding, per fill.
        respond(res, connections.customers(req.params["alias"] as string), (customers) =>
          sendRepresentation(req, res, customers, () => customers.json),
        ),
      ),
    )
    .all(needs({ connection: "use" }), methodNotAllowed("GET, HEAD"));
};
