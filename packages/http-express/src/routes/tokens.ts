import { Router, type Response } from "express";
import type { ConnectionService, Grant } from "@sdwan-connections/core";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { ListedToken, ServiceTokens, TokenGrants } from "../auth/service-tokens.js";
import { problem } from "../errors.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { optionalJsonBody, jsonBody } from "../middleware/json-body.js";
import { withFlags } from "../middleware/query-flags.js";
import { actorOf, userOf } from "../middleware/request-context.js";
import { respond, sendJson, sendProblem } from "../respond.js";

/** Whether the user may manage tokens (an admin); answers the 403 or 404 itself when not. */
const mayManage = (tokens: ServiceTokens | undefined, res: Response): tokens is ServiceTokens => {
  if (tokens === undefined) {
    sendProblem(
      res,
      problem("no-such-endpoint", "This service runs without authentication: there are no service tokens."),
    );
    return false;
  }
  if (userOf(res.locals)?.role !== "admin") {
    sendProblem(res, problem("forbidden", "Service tokens are for admins only."));
    return false;
  }
  return true;
};

const noSuchToken = (res: Response) =>
  sendProblem(res, problem("token-not-found", "There is no service token with this id."));

/** Answers a token with its secret: never cached, as GET /session's. */
const sendIssued = (res: Response, status: number, issued: unknown) => {
  res.setHeader("Cache-Control", "no-store");
  sendJson(res, status, issued);
};

/**
 * docs/interface.md "Service tokens" (SPEC §11): create (the secret shown once), list (never a secret), revoke
 * and renew with overlap; admins only, each change audited (never the secret). Served without authentication
 * (benchmarks), there are none.
 */
export const tokensRoutes = (
  tokens: ServiceTokens | undefined,
  { grants, recordTokenChange }: Pick<ConnectionService, "grants" | "recordTokenChange">,
): Router => {
  const router = Router({ caseSensitive: true, strict: false });
  router
    .route("/tokens")
    .get(
      withFlags([], async (_req, res) => {
        if (mayManage(tokens, res)) await respond(res, tokens.list(), (list) => sendJson(res, 200, list));
      }),
    )
    .post(
      jsonBody,
      withFlags([], async (req, res) => {
        if (!mayManage(tokens, res)) return;
        const by = actorOf(res.locals);
        await respond(
          res,
          pipe(
            tokens.create(req.body, by.name),
            // Audited, then its grants, each audited as the creator's change (one saying the same as an existing
            // grant is there already).
            TE.tap((created) =>
              created === undefined
                ? TE.right(undefined)
                : pipe(
                    TE.fromTask(() => recordTokenChange(by, "token-create", created.issued)),
                    TE.flatMap(() =>
                      TE.traverseSeqArray(({ pattern, verb }: TokenGrants[number]) =>
                        grants.add({ subject: `token:${created.issued.name}`, pattern, verb }, by),
                      )(created.grants),
                    ),
                  ),
            ),
          ),
          (created) =>
            created === undefined
              ? sendProblem(
                  res,
                  problem(
                    "token-already-exists",
                    "A service token of this name exists: revoke it or choose another name.",
                  ),
                )
              : sendIssued(res, 201, created.issued),
        );
      }),
    )
    .all(methodNotAllowed("GET, HEAD, POST"));
  router
    .route("/tokens/:id")
    .delete(
      withFlags([], async (req, res) => {
        if (!mayManage(tokens, res)) return;
        const id = req.params["id"] as string;
        const by = actorOf(res.locals);
        await respond(
          res,
          pipe(
            TE.Do,
            TE.bind("named", () =>
              TE.map((all: readonly ListedToken[]) => all.find((one) => one.id === id))(tokens.list()),
            ),
            TE.bind("revoked", () => tokens.revoke(id)),
            // Audited, and its grants go with it: a later token of the same name starts with none.
            TE.tap(({ named, revoked }) =>
              named === undefined || !revoked
                ? TE.right(undefined)
                : pipe(
                    TE.fromTask(() => recordTokenChange(by, "token-revoke", named)),
                    TE.flatMap(() => grants.list()),
                    TE.flatMap(
                      TE.traverseSeqArray((grant: Grant) =>
                        grant.subject === `token:${named.name}` ? grants.remove(grant.id, by) : TE.right(undefined),
                      ),
                    ),
                  ),
            ),
          ),
          ({ revoked }) => (revoked ? void res.status(204).end() : noSuchToken(res)),
        );
      }),
    )
    .all(methodNotAllowed("DELETE"));
  router
    .route("/tokens/:id/renew")
    .post(
      optionalJsonBody,
      withFlags([], async (req, res) => {
        if (!mayManage(tokens, res)) return;
        const by = actorOf(res.locals);
        await respond(
          res,
          pipe(
            tokens.renew(req.params["id"] as string, req.body),
            TE.tap((issued) =>
              issued === undefined
                ? TE.right(undefined)
                : TE.fromTask(() => recordTokenChange(by, "token-renew", issued)),
            ),
          ),
          (issued) => (issued === undefined ? noSuchToken(res) : sendIssued(res, 200, issued)),
        );
      }),
    )
    .all(methodNotAllowed("POST"));
  return router;
};
