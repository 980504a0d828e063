import type { Groups } from "@sdwan-connections/composition";
import {
  accessOf,
  AliasCodec,
  decodeInput,
  patternMatches,
  SubjectCodec,
  type Core,
  type Grant,
} from "@sdwan-connections/core";
import { Router, type Response } from "express";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { domainErrorToProblem, problem } from "../errors.js";
import { needs } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { jsonBody } from "../middleware/json-body.js";
import { withFlags } from "../middleware/query-flags.js";
import { actorOf, userOf } from "../middleware/request-context.js";
import { respond, sendJson, sendProblem } from "../respond.js";

/** Whether the user is an admin (or the service runs without authentication); answers the 403 itself when not. */
const isAdmin = (res: Response): boolean => {
  const user = userOf(res.locals);
  if (user === undefined || user.role === "admin") return true;
  sendProblem(res, problem("forbidden", "Grants are for admins only."));
  return false;
};

const CheckQuery = t.type({ subject: SubjectCodec, alias: AliasCodec });

/** The verbs each subject's grants give on `alias`, subjects in the order of their first grant. */
const accessList = (alias: string, grants: readonly Grant[]) => {
  const covering = grants.filter((grant) => patternMatches(grant.pattern, alias));
  const subjects = [...new Set(covering.map((grant) => grant.subject))];
  return {
    alias,
    subjects: subjects.map((subject) => ({
      subject,
      verbs: accessOf({ name: subject, groups: [], role: undefined }, covering).verbs(alias),
    })),
    grants: covering,
  };
};

/**
 * SPEC §11's grants, admins only: list, add (201; one saying the same is 409), remove; who may do what on a
 * connection (its grants; the roles are SPEC §5's); and the verbs a subject has on an alias.
 */
export const grantsRoutes = (service: Pick<Core, "grants" | "connections">, groups: () => Groups): Router => {
  const router = Router({ caseSensitive: true, strict: false });
  router
    .route("/grants")
    .get(
      needs("role"),
      withFlags([], async (_req, res) => {
        if (isAdmin(res)) await respond(res, service.grants.list(), (grants) => sendJson(res, 200, grants));
      }),
    )
    .post(
      needs("role"),
      jsonBody,
      withFlags([], async (req, res) => {
        if (!isAdmin(res)) return;
        await respond(res, service.grants.add(req.body, actorOf(res.locals)), (grant) =>
          grant === undefined
            ? sendProblem(res, problem("grant-already-exists", "A grant saying the same exists."))
            : sendJson(res, 201, grant),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD, POST"));
  router
    .route("/grants/:id")
    .delete(
      needs("role"),
      withFlags([], async (req, res) => {
        if (!isAdmin(res)) return;
        await respond(res, service.grants.remove(req.params["id"] as string, actorOf(res.locals)), (removed) =>
          removed === undefined
            ? sendProblem(res, problem("grant-not-found", "There is no grant with this id."))
            : void res.status(204).end(),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("DELETE"));
  router
    .route("/connections/:alias/access")
    .get(
      needs("role"),
      withFlags([], async (req, res) => {
        if (!isAdmin(res)) return;
        await respond(
          res,
          pipe(
            service.connections.describe(req.params["alias"] as string),
            TE.flatMap((details) =>
              TE.map((grants: readonly Grant[]) => accessList(details.alias, grants))(service.grants.list()),
            ),
          ),
          (list) => sendJson(res, 200, list),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD"));
  router
    .route("/access/check")
    .get(needs("role"), async (req, res) => {
      if (!isAdmin(res)) return;
      const query = decodeInput(CheckQuery, "query")(req.query);
      if (query._tag === "Left") {
        sendProblem(res, domainErrorToProblem(query.left));
        return;
      }
      const { subject, alias } = query.right;
      await respond(res, service.grants.list(), (grants) =>
        sendJson(res, 200, {
          subject,
          alias,
          // A principal's groups from SDWAN_GROUPS_FILE count; its role and its provider's groups are known only when it signs in.
          verbs: accessOf({ name: subject, groups: groups().get(subject) ?? [], role: undefined }, grants).verbs(alias),
        }),
      );
    })
    .all(needs("role"), methodNotAllowed("GET, HEAD"));
  return router;
};
