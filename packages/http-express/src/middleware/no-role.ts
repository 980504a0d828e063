import { AliasCodec, decodeInput, notFound } from "@sdwan-connections/core";
import type { RequestHandler } from "express";
import * as E from "fp-ts/lib/Either.js";
import { domainErrorToProblem, problem } from "../errors.js";
import { sendJson, sendProblem } from "../respond.js";
import { healthAnswer } from "../routes/health.js";

const READ_METHODS = new Set(["GET", "HEAD"]);

/** The alias a path names, as given; undefined when it names none or cannot be decoded. */
const aliasOf = (path: string): string | undefined => {
  const raw = /^\/(?:connections|partner)\/([^/]+)/.exec(path)?.[1];
  try {
    return raw === undefined ? undefined : decodeURIComponent(raw);
  } catch {
    return undefined;
  }
};

/**
 * SPEC §11: "a principal with no role sees only what its grants give" (an OpenID user in no admin or viewer
 * group). Until grants exist that is nothing: it may ask who it is; its lists are empty; every connection
 * answers as an unknown alias does (400 for a malformed one, else 404), so none is revealed; anything else,
 * an add included, is 403.
 */
export const withoutRole =
  (healthIntervalMs: number | undefined): RequestHandler =>
  (req, res, next) => {
    const path = req.path.replace(/(.)\/$/, "$1");
    const reading = READ_METHODS.has(req.method);
    if (reading && path === "/me") return next();
    if (reading && path === "/connections") return sendJson(res, 200, []);
    if (reading && path === "/health/connections") return sendJson(res, 200, healthAnswer(healthIntervalMs, []));
    const alias = aliasOf(path);
    if (alias !== undefined) {
      const decoded = decodeInput(AliasCodec, "alias")(alias);
      return sendProblem(res, domainErrorToProblem(E.isLeft(decoded) ? decoded.left : notFound(decoded.right)));
    }
    sendProblem(
      res,
      problem(
        "forbidden",
        "This user has no role (in none of the provider's admin or viewer groups): it may read nothing.",
      ),
    );
  };
