import { repeatedName } from "@sdwan-connections/core";
import express, { type RequestHandler } from "express";
import { problem } from "../errors.js";
import { bodyTooLarge, REPEATED_NAME } from "./errors.js";
import { BODY_LIMIT_BYTES } from "../openapi.js";
import { sendProblem } from "../respond.js";

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

// A charset parameter, if given, must name UTF-8 (the only encoding of JSON, RFC 8259 §8.1).
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/** POST and PUT take JSON in UTF-8 only: anything else is 415 before the body is read, and a declared length above the limit 413. */
const requireJson: RequestHandler = (req, res, next) => {
  const contentType = req.headers["content-type"] ?? "";
  const mediaType = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  const charset = CHARSET.exec(contentType)?.[1]?.toLowerCase();
  if (!JSON_MEDIA_TYPE.test(mediaType) || (charset !== undefined && charset !== "utf-8" && charset !== "utf8")) {
    sendProblem(
      res,
      problem("unsupported-media-type", "The request body must be JSON in UTF-8 (Content-Type: application/json)."),
    );
    return;
  }
  // Declared too large (and not compressed): refused before reading, where body-parser would first wait for the whole body.
  const encoding = req.headers["content-encoding"] ?? "identity";
  if (encoding === "identity" && Number(req.headers["content-length"] ?? 0) > BODY_LIMIT_BYTES) {
    sendProblem(res, bodyTooLarge());
    return;
  }
  next();
};

/** A JSON body of at most BODY_LIMIT_BYTES; its parse errors are answered by the error handler, in our own words. */
export const jsonBody: RequestHandler[] = [
  requireJson,
  express.json({
    limit: BODY_LIMIT_BYTES,
    strict: false,
    type: () => true,
    // A field given twice is refused, not read as its last value (the error handler answers it).
    verify: (_req, _res, bytes) => {
      const name = repeatedName(bytes.toString("utf8"));
      if (name !== undefined)
        throw Object.assign(new Error("a field given twice"), { type: REPEATED_NAME, field: name });
    },
  }),
];

/** As `jsonBody` when the request has a body; a request without one (no length, or 0) passes with none. */
export const optionalJsonBody: RequestHandler = (req, res, next) => {
  const declared = req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0";
  if (!declared) return next();
  const [check, parse] = jsonBody as [RequestHandler, RequestHandler];
  return check(req, res, (error?: unknown) => (error === undefined ? parse(req, res, next) : next(error)));
};
