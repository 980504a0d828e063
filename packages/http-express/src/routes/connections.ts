import type { ConnectionService } from "@sdwan-connections/core";
import { Router } from "express";
import { jsonBody } from "../middleware/json-body.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { sendRepresentation } from "../representation.js";
import { respond, sendJson, sendText } from "../respond.js";

// Exactly the two summary fields, whatever a store returns.
const SUMMARY_KEYS = ["alias", "orchestratorUrl"];

/** docs/interface.md §1-§2: list, add, validate, update and delete connections; each handler is one use case call. */
export const connectionsRoutes = (service: ConnectionService): Router => {
  const router = Router({ caseSensitive: true, strict: false });

  router
    .route("/connections")
    .get(
      withFlags([], (req, res) =>
        respond(res, service.listConnections(), (connections) => sendRepresentation(req, res, connections, () => JSON.stringify(connections, SUMMARY_KEYS))),
      ),
    )
    .post(
      jsonBody,
      withFlags(["dryrun", "force"], (req, res, { dryrun, force }) =>
        respond(res, service.addConnection(req.body, { dryRun: dryrun, force }), (outcome) =>
          sendText(res, outcome === "dry-run" ? "Dry run successful" : "Connection successfully added"),
        ),
      ),
    )
    .all(methodNotAllowed("GET, HEAD, POST"));

  router
    .route("/connections/:alias")
    .get(
      withFlags(["verbose"], (req, res, { verbose }) =>
        respond(res, service.validateConnection(req.params["alias"] as string), (result) => {
          const base = { alias: result.alias, orchestratorUrl: result.orchestratorUrl, valid: result.valid };
          sendJson(res, 200, !verbose ? base : result.valid ? { ...base, type: result.type } : { ...base, reason: result.reason });
        }),
      ),
    )
    .put(
      jsonBody,
      withFlags(["force"], (req, res, { force }) =>
        respond(res, service.updateConnection(req.params["alias"] as string, req.body, { force }), () => sendText(res, "Connection successfully updated")),
      ),
    )
    .delete(withFlags([], (req, res) => respond(res, service.deleteConnection(req.params["alias"] as string), () => void res.status(204).end())))
    .all(methodNotAllowed("GET, HEAD, PUT, DELETE"));

  return router;
};
