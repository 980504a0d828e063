import type { FieldError } from "@sdwan-connections/core";
import type { Request, RequestHandler, Response } from "express";
import * as E from "fp-ts/lib/Either.js";
import { invalidRequest } from "../errors.js";
import { sendProblem } from "../respond.js";

export type Flag = "dryrun" | "force" | "grants" | "stored" | "verbose";

/**
 * Decodes the query options a route accepts: `true` or `false` (any case).
 * Anything else, including an unknown name, is refused: a typo such as
 * `dryRun=true` must never silently store a connection. Errors name the
 * known options, never the unknown ones.
 */
export const decodeFlags = <F extends Flag>(
  query: Request["query"],
  allowed: readonly F[],
): E.Either<readonly FieldError[], Record<F, boolean>> => {
  const flags = Object.fromEntries(allowed.map((name) => [name, false])) as Record<F, boolean>;
  const errors: FieldError[] = [];
  const unknown = Object.keys(query).some((name) => !(allowed as readonly string[]).includes(name));
  // The unknown names themselves are never echoed: a secret pasted into a URL must not come back.
  if (unknown) {
    errors.push({
      field: "query",
      message:
        allowed.length === 0
          ? "this endpoint takes no query parameters"
          : `holds an option this endpoint does not know (known: ${allowed.join(", ")})`,
    });
  }
  for (const [name, value] of Object.entries(query)) {
    if (!(allowed as readonly string[]).includes(name)) continue;
    else if (typeof value !== "string" || !/^(true|false)$/i.test(value)) {
      errors.push({ field: `query.${name}`, message: "must be true or false, given once" });
    } else {
      flags[name as F] = value.toLowerCase() === "true";
    }
  }
  return errors.length === 0 ? E.right(flags) : E.left(errors);
};

/** A handler that receives its decoded query options; a bad query is answered 400 before it runs. */
export const withFlags = <F extends Flag>(
  allowed: readonly F[],
  handler: (req: Request, res: Response, flags: Readonly<Record<F, boolean>>) => Promise<void>,
): RequestHandler => {
  // Most requests carry no query string: every option is false, and express's query parse is skipped (http bench profile).
  const none = E.map((flags: Record<F, boolean>) => Object.freeze(flags))(decodeFlags({}, allowed));
  return async (req, res) => {
    const decoded = req.url.includes("?") ? decodeFlags(req.query, allowed) : none;
    if (E.isLeft(decoded)) sendProblem(res, invalidRequest(decoded.left));
    else await handler(req, res, decoded.right);
  };
};
