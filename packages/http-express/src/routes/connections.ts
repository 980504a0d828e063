import { ANSWER_TEXT, detailsAnswer, validationAnswer, versionFromText, type ConnectionService, type ExpectedVersions } from "@sdwan-connections/core";
import { Router, type Request, type Response } from "express";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { LoginThrottle } from "../auth/throttle.js";
import { domainErrorToProblem, invalidRequest, problem, type Problem } from "../errors.js";
import { jsonBody } from "../middleware/json-body.js";
import { actorOf, clientOf } from "../middleware/request-context.js";
import { methodNotAllowed } from "../middleware/errors.js";
import { withFlags } from "../middleware/query-flags.js";
import { sendRepresentation } from "../representation.js";
import { respond, sendJson, sendProblem, sendText } from "../respond.js";

// Exactly the two summary fields, whatever a store returns.
const SUMMARY_KEYS = ["alias", "orchestratorUrl"];

/** A connection's entity tag: its version, quoted (a strong tag: equal tags mean the same stored connection). */
export const connectionTag = (version: number): string => `"${version}"`;

// RFC 9110 §8.8.3: an entity tag, weak or strong. Ours are strong and hold a version.
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/**
 * The versions a write expects, from its If-Match header (RFC 9110 §13.1.1): undefined without one or
 * with `*` (any existing connection matches), else the versions its strong tags name. A weak tag or
 * another server's tag is well-formed but names no version, so it never matches (412). A malformed
 * header is a 400 that does not echo it.
 */
const expectedVersionsOf = (req: Request): E.Either<Problem, ExpectedVersions | undefined> => {
  const header = req.headers["if-match"];
  if (header === undefined || header.trim() === "*") return E.right(undefined);
  const tags = header.split(",").map((tag) => ENTITY_TAG.exec(tag.trim()));
  if (tags.some((tag) => tag === null)) {
    return E.left(invalidRequest([{ field: "If-Match", message: 'must be * or entity tags such as "3", as the ETag of GET gave them' }]));
  }
  return E.right(tags.flatMap((tag) => (tag?.[1] === undefined ? O.match(() => [], (version: number) => [version])(versionFromText(tag?.[2] ?? "")) : [])));
};

// A write's If-Match, decoded: the use case's option, or a 400 before it runs.
const withExpectedVersions = async (
  req: Request,
  res: Response,
  handler: (options: { readonly expectedVersions?: ExpectedVersions }) => Promise<void>,
): Promise<void> => {
  const expected = expectedVersionsOf(req);
  if (E.isLeft(expected)) sendProblem(res, expected.left);
  else await handler(expected.right === undefined ? {} : { expectedVersions: expected.right });
};

/**
 * docs/interface.md §1-§2: list, add, validate, update and delete connections, and check a key; each
 * handler is one use case call. A key check that does not match counts against its client as a failed
 * login does (`throttle`, shared with the logins' count), so keys cannot be guessed through it.
 */
export const connectionsRoutes = (service: ConnectionService, throttle?: LoginThrottle): Router => {
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
        respond(res, service.addConnection(req.body, { dryRun: dryrun, force, by: actorOf(res.locals) }), (outcome) =>
          sendText(res, ANSWER_TEXT[outcome]),
        ),
      ),
    )
    .all(methodNotAllowed("GET, HEAD, POST"));

  router
    .route("/connections/:alias")
    .get(
      // As the original, a validation; with the opt-in stored=true, what is stored, without asking the orchestrator.
      withFlags(["stored", "verbose"], (req, res, { stored, verbose }) => {
        const alias = req.params["alias"] as string;
        return stored
          ? respond(res, service.describeConnection(alias), (details) => {
              res.setHeader("ETag", connectionTag(details.version));
              sendJson(res, 200, detailsAnswer(details));
            })
          : respond(res, service.validateConnection(alias), (result) => {
              res.setHeader("ETag", connectionTag(result.version));
              sendJson(res, 200, validationAnswer(result, verbose));
            });
      }),
    )
    .put(
      jsonBody,
      withFlags(["dryrun", "force"], (req, res, { dryrun, force }) =>
        withExpectedVersions(req, res, (expectedVersions) =>
          respond(
            res,
            service.updateConnection(req.params["alias"] as string, req.body, { dryRun: dryrun, force, ...expectedVersions, by: actorOf(res.locals) }),
            (outcome) => sendText(res, ANSWER_TEXT[outcome]),
          ),
        ),
      ),
    )
    .delete(
      withFlags([], (req, res) =>
        withExpectedVersions(req, res, (expectedVersions) =>
          respond(res, service.deleteConnection(req.params["alias"] as string, { ...expectedVersions, by: actorOf(res.locals) }), () =>
            void res.status(204).end(),
          ),
        ),
      ),
    )
    .all(methodNotAllowed("GET, HEAD, PUT, DELETE"));

  router
    .route("/connections/:alias/key-check")
    .post(
      jsonBody,
      withFlags([], async (req, res) => {
        // Reserved before the comparison, so concurrent guesses cannot all pass one count; given back unless it was a mismatch.
        const reservation = await throttle?.reserve({ address: `key-check ${clientOf(res.locals)}`, user: actorOf(res.locals).name });
        if (reservation?._tag === "Unavailable") {
          sendProblem(res, domainErrorToProblem(reservation.error));
          return;
        }
        if (reservation?._tag === "Refused") {
          sendProblem(
            res,
            problem("too-many-key-checks", "Too many key checks that did not match from this client; try again later.", {
              headers: { "Retry-After": String(reservation.retryAfterSeconds) },
            }),
          );
          return;
        }
        const checked = await service.checkApiKey(req.params["alias"] as string, req.body, { by: actorOf(res.locals) })();
        if (E.isRight(checked) && !checked.right.matches) await reservation?.failed();
        else reservation?.giveBack();
        await respond(res, TE.fromEither(checked), (result) => sendJson(res, 200, { matches: result.matches }));
      }),
    )
    .all(methodNotAllowed("POST"));

  return router;
};
