import { randomUUID } from "node:crypto";
import type { Logger, Metrics } from "@sdwan-connections/composition";
import type { Actor } from "@sdwan-connections/core";
import type { RequestHandler } from "express";
import type { AuthenticatedUser } from "../auth/authenticator.js";
import type { ClientAddress } from "./client-address.js";
import { apiTemplateOf, BASE_PATH } from "../openapi.js";
import { CONSOLE_PATH } from "../routes/console.js";
import { OPERATION_PATHS } from "../routes/operations.js";

const OPERATIONS: readonly string[] = Object.values(OPERATION_PATHS);

const labelOf = (path: string): string => {
  const template = path.startsWith(`${BASE_PATH}/`) ? apiTemplateOf(path.slice(BASE_PATH.length)) : undefined;
  if (template !== undefined) return `${BASE_PATH}${template}`;
  if (path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`)) return CONSOLE_PATH;
  return OPERATIONS.includes(path) ? path : "unmatched";
};

/**
 * `label` of a path, remembered for the paths seen last (at most `max`; all forgotten when full, since an alias makes
 * paths unbounded): the same path is matched against the route table once, not at each request (warm customers
 * profile: the table's patterns tried one by one, about 25 µs a request).
 */
export const rememberedPerPath = (label: (path: string) => string, max = 1024): ((path: string) => string) => {
  let known = new Map<string, string>();
  return (path) => {
    let found = known.get(path);
    if (found === undefined) {
      found = label(path);
      if (known.size >= max) known = new Map();
      known.set(path, found);
    }
    return found;
  };
};

/** A request's route for metric labels and logs: the documented pattern (one route table: the OpenAPI document), never the alias itself. */
export const routeLabel = rememberedPerPath(labelOf);

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const SECURITY_HEADERS = Object.entries({
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
});

/** The user the authentication middleware admitted, for the request log. */
export const userOf = (locals: Record<string, unknown>): AuthenticatedUser | undefined =>
  locals["user"] as AuthenticatedUser | undefined;

/** The client's address (behind the trusted proxies), as the request context found it: what the login throttle counts by and the request log names. */
export const clientOf = (locals: Record<string, unknown>): string => locals["client"] as string;

/** Who made the request, for the audit trail: the admitted user and the request's id. */
export const actorOf = (locals: Record<string, unknown>): Actor => ({
  name: userOf(locals)?.name ?? "anonymous",
  requestId: locals["requestId"] as string,
});

/** Request id, client address, security headers, and one log line and one metric sample per answered request. */
export const requestContext = ({
  logger,
  metrics,
  clientAddress,
}: {
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clientAddress: ClientAddress;
}): RequestHandler => {
  // The request line's fields are these, none of them a header, a body or a key: pino's redaction (the safety net of
  // every other line) can find nothing in it, and costs a third of its CPU (profile: redact, 1.9% of a listed request).
  const requestLog = logger.child({}, { redact: [] });
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const path = req.path; // before routers rewrite it
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("X-Request-Id", requestId);
    res.locals["requestId"] = requestId;
    const forwardedFor = req.headers["x-forwarded-for"];
    const client = clientAddress(
      req.socket.remoteAddress,
      Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor,
    );
    res.locals["client"] = client;
    for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeLabel(path);
      metrics.recordRequest(req.method, route, res.statusCode, seconds);
      // Never headers, query values or bodies: they may hold credentials or keys.
      requestLog.info(
        {
          requestId,
          client,
          method: req.method,
          route,
          status: res.statusCode,
          durationMs: Math.round(seconds * 1e6) / 1e3,
          user: userOf(res.locals)?.name,
          traceId: res.locals["traceId"] as string | undefined, // only when traces are on (pino leaves it out otherwise)
        },
        "request",
      );
    });
    next();
  };
};
