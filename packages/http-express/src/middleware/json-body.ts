import express, { type RequestHandler } from "express";
import { problem } from "../errors.js";
import { BODY_LIMIT_BYTES } from "../openapi.js";
import { sendProblem } from "../respond.js";

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;

/** POST and PUT take JSON only: anything else is 415 before the body is read. */
const requireJson: RequestHandler = (req, res, next) => {
  const mediaType = req.headers["content-type"]?.split(";", 1)[0]?.trim().toLowerCase();
  if (mediaType === undefined || !JSON_MEDIA_TYPE.test(mediaType)) {
    sendProblem(res, problem(415, "unsupported-media-type", "Unsupported media type", "The request body must be JSON (Content-Type: application/json)."));
    return;
  }
  next();
};

/** A JSON body of at most BODY_LIMIT_BYTES; its parse errors are answered by the error handler, in our own words. */
export const jsonBody: RequestHandler[] = [requireJson, express.json({ limit: BODY_LIMIT_BYTES, strict: false, type: () => true })];
