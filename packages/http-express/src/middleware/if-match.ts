import { versionFromText, type ExpectedVersions } from "@sdwan-connections/core";
import type { Request, Response } from "express";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { invalidRequest, type Problem } from "../errors.js";
import { sendProblem } from "../respond.js";

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
export const withExpectedVersions = async (
  req: Request,
  res: Response,
  handler: (options: { readonly expectedVersions?: ExpectedVersions }) => Promise<void>,
): Promise<void> => {
  const expected = expectedVersionsOf(req);
  if (E.isLeft(expected)) sendProblem(res, expected.left);
  else await handler(expected.right === undefined ? {} : { expectedVersions: expected.right });
};
