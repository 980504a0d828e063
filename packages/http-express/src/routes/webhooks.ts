import type { Webhooks } from "@sdwan-connections/core";
import { CreatedWebhook, Delivery, PingAnswer, Webhook } from "@sdwan-connections/core/wire";
import * as t from "io-ts";
import type { Request, Response, Router } from "express";
import { problem } from "../errors.js";
import { needs } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { jsonBody } from "../middleware/json-body.js";
import { withFlags } from "../middleware/query-flags.js";
import { actorOf } from "../middleware/request-context.js";
import { respond, sendCreated, sendJson, sendProblem } from "../respond.js";

/** Whether there are webhooks (an embedder's app may have none); answers the 404 itself when not. */
const mayManage = (webhooks: Webhooks | undefined, res: Response): webhooks is Webhooks => {
  if (webhooks === undefined) {
    sendProblem(res, problem("no-such-endpoint", "This service has no webhooks."));
    return false;
  }
  return true;
};

const WEBHOOKS = t.readonlyArray(Webhook);
const DELIVERIES = t.readonlyArray(Delivery);
const ADMINS = { admin: "Webhooks are for admins only." };

const noSuchWebhook = (res: Response) =>
  sendProblem(res, problem("webhook-not-found", "There is no webhook with this id."));

/** Answers `found` (the wire's `answer`), or 404 when undefined. */
const sendFound =
  <C extends t.Any>(res: Response, answer: C) =>
  (found: t.TypeOf<C> | undefined) =>
    found === undefined ? noSuchWebhook(res) : sendJson(res, 200, answer, found);

/**
 * docs/interface.md "Webhooks" (SPEC §9), admins only: create (the secret shown once), list, get, delete, ping,
 * a webhook's deliveries (status and latency of each attempt, never a body), and a new attempt of a settled one
 * (audited). Creates and deletes are audited.
 */
export const webhooksRoutes = (router: Router, webhooks: Webhooks | undefined): void => {
  const id = (req: Request) => req.params["id"] as string;
  router
    .route("/webhooks")
    .get(
      needs(ADMINS),
      withFlags([], async (_req, res) => {
        if (mayManage(webhooks, res)) await respond(res, webhooks.list(), (list) => sendJson(res, 200, WEBHOOKS, list));
      }),
    )
    .post(
      needs(ADMINS),
      jsonBody,
      withFlags([], async (req, res) => {
        if (!mayManage(webhooks, res)) return;
        await respond(res, webhooks.create(req.body, actorOf(res.locals)), (created) => {
          // The secret is in this answer only: never cached.
          res.setHeader("Cache-Control", "no-store");
          sendCreated(res, CreatedWebhook, created);
        });
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD, POST"));
  router
    .route("/webhooks/:id")
    .get(
      needs(ADMINS),
      withFlags([], async (req, res) => {
        if (mayManage(webhooks, res)) await respond(res, webhooks.get(id(req)), sendFound(res, Webhook));
      }),
    )
    .delete(
      needs(ADMINS),
      withFlags([], async (req, res) => {
        if (!mayManage(webhooks, res)) return;
        await respond(res, webhooks.remove(id(req), actorOf(res.locals)), (removed) =>
          removed ? void res.status(204).end() : noSuchWebhook(res),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD, DELETE"));
  router
    .route("/webhooks/:id/ping")
    .post(
      needs(ADMINS),
      withFlags([], async (req, res) => {
        if (mayManage(webhooks, res)) await respond(res, webhooks.ping(id(req)), sendFound(res, PingAnswer));
      }),
    )
    .all(needs("role"), methodNotAllowed("POST"));
  router
    .route("/webhooks/:id/deliveries")
    .get(needs(ADMINS), async (req, res) => {
      if (mayManage(webhooks, res))
        await respond(res, webhooks.deliveries(id(req), req.query), sendFound(res, DELIVERIES));
    })
    .all(needs("role"), methodNotAllowed("GET, HEAD"));
  router
    .route("/webhooks/:id/deliveries/:deliveryId/redeliver")
    .post(
      needs(ADMINS),
      withFlags([], async (req, res) => {
        if (!mayManage(webhooks, res)) return;
        const deliveryId = req.params["deliveryId"] as string;
        const redelivered = webhooks.redeliver(id(req), deliveryId, actorOf(res.locals));
        await respond(res, redelivered, (redelivery) => {
          switch (redelivery._tag) {
            case "queued":
              return sendJson(res, 202, Delivery, redelivery.delivery);
            case "unknown":
              return sendProblem(
                res,
                problem(
                  "delivery-not-found",
                  "This webhook has no delivery with this id (it has none kept by that id).",
                ),
              );
            case "pending":
              return sendProblem(
                res,
                problem(
                  "delivery-pending",
                  "This delivery, or a redelivery of its event, is still pending: it will be tried.",
                ),
              );
            case "expired":
              return sendProblem(
                res,
                problem("delivery-event-expired", "The event of this delivery is no longer kept by the audit trail."),
              );
          }
        });
      }),
    )
    .all(needs("role"), methodNotAllowed("POST"));
};
