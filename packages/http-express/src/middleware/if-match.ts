import { versionFromText, type ExpectedVersions } from "@sdwan-connections/core";
import type { Request, Response } from "express";
import * as O from "fp-ts/lib/Option.js";
import { invalidRequest } from "../errors.js";
import { sendProblem } from "../respond.js";

/** A connection's entity tag: its version, quoted (a strong tag: equal tags mean the same stored connection). */
export const connectionTag = (version: number): string => `"${version}"`;

// RFC 9110 §8.8.3: an entity tag, weak or strong. Ours are strong and hold a version.
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;

/**
 * A write's If-Match (RFC 9110 §13.1.1) as the use case's option, decoded before the handler runs: none without
 * one or with `*` (any existing connection matches), else the versions its strong tags name. A weak tag or
 * another server's tag is well-formed but names no version, so it never matches (412). A malformed header is
 * a 400 that does not echo it, and the handler does not run.
 */
export const withExpectedVersions = async (
  req: Request,
  res: Response,
  handler: (options: { readonly expectedVersions?: ExpectedVersions }) => Promise<void>,
): Promise<void> => {
  const header = req.headers["if-match"];
  if (header === undefined || header.trim() === "*") return handler({});
  const tags = header.split(",").map((tag) => ENTITY_TAG.exec(tag.trim()));
  if (tags.some((tag) => tag === null)) {
    return sendProblem(
      res,
      invalidRequest([
        { field: "If-Match", message: 'must be * or entity tags such as "3", as the ETag of GET gave them' },
      ]),
    );
  }
  return handler({
    expectedVersions: tags.flatMap((tag) =>
      tag?.[1] === undefined
        ? O.match(
            () => [],
            (version: number) => [version],
          )(versionFromText(tag?.[2] ?? ""))
        : [],
    ),
  });
};
