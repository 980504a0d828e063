import type { Logger } from "@sdwan-connections/composition";
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from "express";
import { invalidRequest, problem, type Problem } from "../errors.js";
import { BODY_LIMIT_BYTES } from "../openapi.js";
import { sendProblem } from "../respond.js";

export const methodNotAllowed =
  (allow: string): RequestHandler =>
  (req, res) => {
    res.setHeader("Allow", allow);
    // OPTIONS asks which methods the path takes (RFC 9110 §9.3.7): the Allow header is the answer.
    if (req.method === "OPTIONS") {
      res.status(204).end();
      return;
    }
    sendProblem(res, problem("method-not-allowed", `${req.method} is not allowed here; use ${allow}.`));
  };

export const noSuchEndpoint: RequestHandler = (req, res) => {
  sendProblem(res, problem("no-such-endpoint", `There is no endpoint at ${req.method} ${req.path}.`));
};

export const bodyTooLarge = (): Problem =>
  problem("body-too-large", `The request body must be at most ${BODY_LIMIT_BYTES} bytes.`);

/** The body reader's error `type` for a body that names a field twice (`field`: the name). */
export const REPEATED_NAME = "entity.repeated.name";

// body-parser's messages can quote the body (and so an apiKey): answer with our own words only.
const knownProblem = ({ type, field }: { readonly type?: unknown; readonly field?: unknown }): Problem | undefined => {
  switch (type) {
    case REPEATED_NAME:
      return invalidRequest([{ field: String(field), message: "is given twice: give each field once" }]);
    case "entity.too.large":
      return bodyTooLarge();
    case "entity.parse.failed":
      return invalidRequest([{ field: "body", message: "is not valid JSON" }]);
    case "charset.unsupported":
    case "encoding.unsupported":
      return problem("unsupported-media-type", "The request body must be JSON in UTF-8.");
    case "request.aborted":
    case "request.size.invalid":
      return invalidRequest([{ field: "body", message: "was not received completely" }]);
    default:
      return undefined;
  }
};

/** Any other client error the body reader reports (a gzip body that does not inflate, for one). */
const unreadableBody = (error: unknown): Problem | undefined => {
  const status = (error as { status?: unknown } | undefined)?.status;
  return typeof status === "number" && status >= 400 && status < 500
    ? invalidRequest([{ field: "body", message: "cannot be read as sent (does it match its Content-Encoding?)" }])
    : undefined;
};

/** The last handler: body errors in our own words, anything else a logged 500 that says nothing about the request. */
export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    // The router decodes path parameters; a malformed percent-escape fails there. `alias` is the only one.
    const known =
      error instanceof URIError
        ? invalidRequest([{ field: "alias", message: "is not valid percent-encoded UTF-8" }])
        : (knownProblem(error as { type?: unknown; field?: unknown }) ?? unreadableBody(error));
    if (known !== undefined) {
      sendProblem(res, known);
      return;
    }
    logger.error(
      { errorName: (error as Error | undefined)?.name ?? typeof error },
      "unexpected error while answering a request",
    );
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(res, problem("internal-error", "The service failed to answer this request."));
  };
