import {
  ANSWER_TEXT,
  detailsAnswer,
  validationAnswer,
  type Audit,
  type Connections,
  type GrantVerb,
} from "@sdwan-connections/core";
import {
  ConnectionDetails,
  ConnectionSummary,
  KeyCheck,
  Validation,
  VerboseValidation,
} from "@sdwan-connections/core/wire";
import type { Request, Response, Router } from "express";
import * as E from "fp-ts/lib/Either.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { LoginThrottle } from "../auth/throttle.js";
import { domainErrorToProblem, problem } from "../errors.js";
import { accessOfRequest, mayRead, needs } from "../middleware/authorize.js";
import { connectionTag, withExpectedVersions } from "../middleware/if-match.js";
import { jsonBody } from "../middleware/json-body.js";
import { actorOf, clientOf, userOf } from "../middleware/request-context.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { decodeFlags, withFlags } from "../middleware/query-flags.js";
import { sendRepresentation } from "../representation.js";
import { respond, sendJson, sendProblem, sendText } from "../respond.js";

// What is stored is read; a validation asks the orchestrator (use).
const storedOrValidation = (req: Request): GrantVerb => {
  const flags = decodeFlags(req.query, ["stored", "verbose"]);
  return E.isRight(flags) && flags.right.stored ? "read" : "use";
};

/**
 * Setting `apiKeyRef` needs the admin role (SPEC §12): the reference reads any key the service can reach, another
 * team's included, so a `manage` grant may not name one. Answers whether the request was refused (and audited).
 */
const refusedKeyReference = async (
  audit: Pick<Audit, "forbidden">,
  req: Request,
  res: Response,
  alias: unknown,
): Promise<boolean> => {
  const user = userOf(res.locals);
  if ((req.body as Record<string, unknown> | null)?.["apiKeyRef"] === undefined || user === undefined) return false;
  if (user.role === "admin") return false;
  await audit.forbidden(actorOf(res.locals), {
    method: req.method,
    ...(typeof alias === "string" ? { alias } : {}),
  });
  sendProblem(
    res,
    problem(
      "forbidden",
      "Setting apiKeyRef needs the admin role: a reference reads a key kept outside the store, which may be another team's, so a manage grant may not set one.",
    ),
  );
  return true;
};

// Exactly the wire's summary fields, whatever a store returns (written without a codec's encode: the list can be long).
const SUMMARY_KEYS = Object.keys(ConnectionSummary.props);

/**
 * docs/interface.md §1-§2: list, add, validate, update and delete connections, and check a key; each
 * handler is one use case call. A key check that does not match counts against its client as a failed
 * login does (`throttle`, shared with the logins' count), so keys cannot be guessed through it.
 * The routes are the API router's own, not a router of their own: the most frequent request, the list,
 * enters one router less (http bench profile and A/B: a nested router's level was about 5% of its CPU).
 */
export const connectionsRoutes = (
  router: Router,
  connections: Connections,
  audit: Pick<Audit, "forbidden">,
  throttle?: LoginThrottle,
): void => {
  router
    .route("/connections")
    .get(
      needs("any"),
      withFlags([], (req, res) => {
        const readable = mayRead(res.locals);
        return respond(res, connections.list(), (all) => {
          // Filtered, never refused (SPEC §11): what the user may not read is not there.
          const connections =
            accessOfRequest(res.locals) === undefined ? all : all.filter(({ alias }) => readable(alias));
          sendRepresentation(req, res, connections, () => JSON.stringify(connections, SUMMARY_KEYS));
        });
      }),
    )
    .post(
      needs("add"),
      jsonBody,
      withFlags(["dryrun", "force"], async (req, res, { dryrun, force }) => {
        // Outside every manage pattern: refused before anything is looked up, so a 409 never tells what exists.
        const access = accessOfRequest(res.locals);
        const alias: unknown = (req.body as Record<string, unknown> | null)?.["alias"];
        if (access !== undefined && !access.verbs(typeof alias === "string" ? alias : "").includes("manage")) {
          await audit.forbidden(actorOf(res.locals), {
            method: req.method,
            ...(typeof alias === "string" ? { alias } : {}),
          });
          return sendProblem(
            res,
            problem("forbidden", "This principal may not add a connection of this alias: no manage grant covers it."),
          );
        }
        if (await refusedKeyReference(audit, req, res, alias)) return;
        await respond(res, connections.add(req.body, { dryRun: dryrun, force, by: actorOf(res.locals) }), (outcome) =>
          sendText(res, ANSWER_TEXT[outcome]),
        );
      }),
    )
    .all(needs("role"), methodNotAllowed("GET, HEAD, POST"));

  router
    .route("/connections/:alias")
    .get(
      needs({ connection: storedOrValidation }),
      // As the original, a validation; with the opt-in stored=true, what is stored, without asking the orchestrator.
      withFlags(["stored", "verbose"], (req, res, { stored, verbose }) => {
        const alias = req.params["alias"] as string;
        return stored
          ? respond(res, connections.describe(alias), (details) => {
              res.setHeader("ETag", connectionTag(details.version));
              sendJson(res, 200, ConnectionDetails, detailsAnswer(details));
            })
          : respond(res, connections.validate(alias), (result) => {
              res.setHeader("ETag", connectionTag(result.version));
              sendJson(res, 200, verbose ? VerboseValidation : Validation, validationAnswer(result, verbose));
            });
      }),
    )
    .put(
      needs({ connection: "manage" }),
      jsonBody,
      withFlags(["dryrun", "force"], async (req, res, { dryrun, force }) => {
        if (await refusedKeyReference(audit, req, res, req.params["alias"])) return;
        return withExpectedVersions(req, res, (expectedVersions) =>
          respond(
            res,
            connections.update(req.params["alias"] as string, req.body, {
              dryRun: dryrun,
              force,
              ...expectedVersions,
              by: actorOf(res.locals),
            }),
            (outcome) => sendText(res, ANSWER_TEXT[outcome]),
          ),
        );
      }),
    )
    .delete(
      needs({ connection: "manage" }),
      withFlags([], (req, res) =>
        withExpectedVersions(req, res, (expectedVersions) =>
          respond(
            res,
            connections.delete(req.params["alias"] as string, { ...expectedVersions, by: actorOf(res.locals) }),
            () => void res.status(204).end(),
          ),
        ),
      ),
    )
    .all(needs({ connection: "manage" }), methodNotAllowed("GET, HEAD, PUT, DELETE"));

  router
    .route("/connections/:alias/key-check")
    .post(
      needs({ connection: "manage" }),
      jsonBody,
      withFlags([], async (req, res) => {
        // Reserved before the comparison, so concurrent guesses cannot all pass one count; given back unless it was a mismatch.
        const reservation = await throttle?.reserve({
          address: `key-check ${clientOf(res.locals)}`,
          user: actorOf(res.locals).name,
        });
        if (reservation?._tag === "Unavailable") return sendProblem(res, domainErrorToProblem(reservation.error));
        if (reservation?._tag === "Refused") {
          sendProblem(
            res,
            problem(
              "too-many-key-checks",
              "Too many key checks that did not match from this client; try again later.",
              {
                headers: { "Retry-After": String(reservation.retryAfterSeconds) },
              },
            ),
          );
          return;
        }
        const checked = await connections.checkKey(req.params["alias"] as string, req.body, {
          by: actorOf(res.locals),
        })();
        if (E.isRight(checked) && !checked.right.matches) await reservation?.failed();
        else reservation?.giveBack();
        await respond(res, TE.fromEither(checked), (result) =>
          sendJson(res, 200, KeyCheck, { matches: result.matches }),
        );
      }),
    )
    .all(needs({ connection: "manage" }), methodNotAllowed("POST"));
};
