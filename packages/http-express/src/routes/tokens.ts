import { IssuedToken, ServiceToken } from "@sdwan-connections/core/wire";
import * as t from "io-ts";
import type { Response, Router } from "express";
import type { ServiceTokens } from "@sdwan-connections/core";
import { problem } from "../errors.js";
import { needs } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { optionalJsonBody, jsonBody } from "../middleware/json-body.js";
import { withFlags } from "../middleware/query-flags.js";
import { actorOf } from "../middleware/request-context.js";
import { respond, sendCreated, sendJson, sendProblem } from "../respond.js";

/** Whether there are service tokens (none without authentication); answers the 404 itself when not. */
const mayManage = (tokens: ServiceTokens | undefined, res: Response): tokens is ServiceTokens => {
  if (tokens === undefined) {
    sendProblem(
      res,
      problem("no-such-endpoint", "This service runs without authentication: there are no service tokens."),
    );
    return false;
  }
  return true;
};

const TOKENS = t.readonlyArray(ServiceToken);
const ADMINS = { admin: "Service tokens are for admins only." };

const noSuchToken = (res: Response) =>
  sendProblem(res, problem("token-not-found", "There is no service token with this id."));

/** Answers a token with its secret: never cached, as GET /session's. */
const sendIssued = (res: Response, status: 200 | 201, issued: IssuedToken) => {
  res.setHeader("Cache-Control", "no-store");
  if (status === 201) sendCreated(res, IssuedToken, issued);
  else sendJson(res, status, IssuedToken, issued);
};

/**
 * docs/interface.md "Service tokens" (SPEC §11): create (the secret shown once), list (never a secret), revoke
 * and renew with overlap; admins only. Core's tokens audit each change (never the secret) and give a token its
 * grants. Served without authentication (benchmarks), there are none.
 */
export const tokensRoutes = (router: Router, tokens: ServiceTokens | undefined): void => {
  router
    .route("/tokens")
    .get(
      needs(ADMINS),
      withFlags([], async (_req, res) => {
        if (mayManage(tokens, res)) await respond(res, tokens.list(), (list) => sendJson(res, 200, TOKENS, list));
      }),
    )
    .post(
      needs(ADMINS),
      jsonBody,
      withFlags([], async (req, res) => {
        if (!mayManage(tokens, res)) return;
        await respond(res, tokens.create(req.body, actorOf(res.locals)), (issued) =>
          issued === undefined
            ? sendProblem(
                res,
                problem(
                  "token-already-exists",
                  "A service token of this name exists: revoke it or choose another name.",
                ),
              )
            : sendIssued(res, 201, issued),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD, POST"));
  router
    .route("/tokens/:id")
    .delete(
      needs(ADMINS),
      withFlags([], async (req, res) => {
        if (!mayManage(tokens, res)) return;
        await respond(res, tokens.revoke(req.params["id"] as string, actorOf(res.locals)), (revoked) =>
          revoked ? void res.status(204).end() : noSuchToken(res),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("DELETE"));
  router
    .route("/tokens/:id/renew")
    .post(
      needs(ADMINS),
      optionalJsonBody,
      withFlags([], async (req, res) => {
        if (!mayManage(tokens, res)) return;
        await respond(res, tokens.renew(req.params["id"] as string, req.body, actorOf(res.locals)), (issued) =>
          issued === undefined ? noSuchToken(res) : sendIssued(res, 200, issued),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("POST"));
};
