import type { ConnectionService, ConnectionSummary } from "@sdwan-connections/core";
import { Router } from "express";
import { jsonBody } from "../middleware/json-body.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { respond, sendJson, sendJsonText, sendText } from "../respond.js";

const SUMMARY_KEYS = ["alias", "orchestratorUrl"];
// The store hands back the same list while nothing changed (its port says so), so each list is serialized once.
const listBodies = new WeakMap<readonly ConnectionSummary[], string>();
/** The list's JSON: exactly the two summary fields, whatever a store returns. */
const listBody = (connections: readonly ConnectionSummary[]): string => {
  let body = listBodies.get(connections);
  if (body === undefined) {
    body = JSON.stringify(connections, SUMMARY_KEYS);
    listBodies.set(connections, body);
  }
  return body;
};

/** docs/interface.md §1-§2: list, add, validate, update and delete connections; each handler is one use case call. */
export const connectionsRoutes = (service: ConnectionService): Router => {
  const router = Router({ caseSensitive: true, strict: false });

  router
    .route("/connections")
    .get(withFlags([], (_req, res) => respond(res, service.listConnections(), (connections) => sendJsonText(res, 200, listBody(connections)))))
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
