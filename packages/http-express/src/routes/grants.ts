import type { Groups } from "@sdwan-connections/composition";
import {
  accessOf,
  AliasCodec,
  decodeQuery,
  patternMatches,
  SubjectCodec,
  type Alias,
  type Core,
} from "@sdwan-connections/core";
import { AccessCheck, ConnectionAccess, Grant } from "@sdwan-connections/core/wire";
import type { Router } from "express";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { domainErrorToProblem, problem } from "../errors.js";
import { needs } from "../middleware/authorize.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { jsonBody } from "../middleware/json-body.js";
import { withFlags } from "../middleware/query-flags.js";
import { actorOf } from "../middleware/request-context.js";
import { respond, sendCreated, sendJson, sendProblem } from "../respond.js";

const ADMINS = { admin: "Grants are for admins only." };

const GRANTS = t.readonlyArray(Grant);
const CheckQuery = t.type({ subject: SubjectCodec, alias: AliasCodec });

/** The verbs each subject's grants give on `alias`, subjects in the order of their first grant. */
const accessList = (alias: Alias, grants: readonly Grant[]): ConnectionAccess => {
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
export const grantsRoutes = (
  router: Router,
  service: Pick<Core, "grants" | "connections">,
  groups: () => Groups,
): void => {
  router
    .route("/grants")
    .get(
      needs(ADMINS),
      withFlags([], async (_req, res) => {
        await respond(res, service.grants.list(), (grants) => sendJson(res, 200, GRANTS, grants));
      }),
    )
    .post(
      needs(ADMINS),
      jsonBody,
      withFlags([], async (req, res) => {
        await respond(res, service.grants.add(req.body, actorOf(res.locals)), (grant) =>
          grant === undefined
            ? sendProblem(res, problem("grant-already-exists", "A grant saying the same exists."))
            : sendCreated(res, Grant, grant),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD, POST"));
  router
    .route("/grants/:id")
    .delete(
      needs(ADMINS),
      withFlags([], async (req, res) => {
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
      needs(ADMINS),
      withFlags([], async (req, res) => {
        await respond(
          res,
          pipe(
            service.connections.describe(req.params["alias"] as string),
            TE.flatMap((details) =>
              TE.map((grants: readonly Grant[]) => accessList(details.alias, grants))(service.grants.list()),
            ),
          ),
          (list) => sendJson(res, 200, ConnectionAccess, list),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD"));
  router
    .route("/access/check")
    .get(needs(ADMINS), async (req, res) => {
      const query = decodeQuery(CheckQuery)(req.query);
      if (query._tag === "Left") {
        sendProblem(res, domainErrorToProblem(query.left));
        return;
      }
      const { subject, alias } = query.right;
      await respond(res, service.grants.list(), (grants) =>
        sendJson(res, 200, AccessCheck, {
          subject,
          alias,
          // A principal's groups from SDWAN_GROUPS_FILE count; its role and its provider's groups are known only when it signs in.
          verbs: accessOf({ name: subject, groups: groups().get(subject) ?? [], role: undefined }, grants).verbs(alias),
        }),
      );
    })
    .all(needs("role"), methodNotAllowed("GET, HEAD"));
};
