import { randomUUID } from "node:crypto";
import type { ConnectionService, ConnectionSummary, DomainError, FieldError } from "@sdwan-connections/core";
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from "express";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { Authenticator, AuthenticatedUser } from "./auth/authenticator.js";
import type { LoginThrottle } from "./auth/throttle.js";
import { domainErrorToProblem, invalidRequest, problem, type Problem } from "./errors.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";
import { BODY_LIMIT_BYTES, openApiDocument } from "./openapi.js";

export const BASE_PATH = "/rest/plugin/sdwan";
export { BODY_LIMIT_BYTES };

export interface AppOptions {
  readonly service: ConnectionService;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Credentials check and failed-login throttle; `undefined` serves without authentication (benchmarks only). */
  readonly auth: { readonly authenticator: Authenticator; readonly throttle: LoginThrottle } | undefined;
  /** Whether the store answers now (for `/readyz`). */
  readonly ready: () => Promise<boolean>;
  /** True once shutdown began: `/readyz` then answers 503 so load balancers stop sending. */
  readonly draining?: () => boolean;
}

// The documented routes, for metric labels and logs: a pattern, never the alias itself.
const ROUTES: readonly [RegExp, string][] = [
  [/^\/rest\/plugin\/sdwan\/connections\/?$/, `${BASE_PATH}/connections`],
  [/^\/rest\/plugin\/sdwan\/connections\/[^/]+\/?$/, `${BASE_PATH}/connections/{alias}`],
  [/^\/rest\/plugin\/sdwan\/partner\/[^/]+\/customers\/?$/, `${BASE_PATH}/partner/{alias}/customers`],
  [/^\/rest\/plugin\/sdwan\/openapi\.json$/, `${BASE_PATH}/openapi.json`],
  [/^\/healthz$/, "/healthz"],
  [/^\/readyz$/, "/readyz"],
  [/^\/metrics$/, "/metrics"],
];
const routePattern = (path: string): string => ROUTES.find(([pattern]) => pattern.test(path))?.[1] ?? "unmatched";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Resource-Policy": "same-origin",
  "Cache-Control": "no-store",
};
const SECURITY_HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

export const sendProblem = (res: Response, { status, body, headers }: Problem): void => {
  if (headers !== undefined) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status).setHeader("Content-Type", "application/problem+json; charset=utf-8");
  res.end(JSON.stringify(body));
};

/**
 * JSON straight onto the socket: express's `res.json` adds content
 * negotiation and freshness checks these dynamic, uncacheable answers do not need.
 */
const sendJson = (res: Response, status: number, body: unknown): void => {
  sendJsonText(res, status, JSON.stringify(body));
};

const sendJsonText = (res: Response, status: number, json: string): void => {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.end(json);
};

const SUMMARY_KEYS = ["alias", "orchestratorUrl"];
// Core hands back the same sorted list while the store is unchanged, so each list is serialized once.
const listBodies = new WeakMap<readonly ConnectionSummary[], string>();
/** The list's JSON: exactly the two summary fields, whatever a store returns. */
const listBody = (connections: readonly ConnectionSummary[]): string => {
  let body = listBodies.get(connections);
  if (body === undefined) {
    body = JSON.stringify(connections, SUMMARY_KEYS);
    listBodies.set(connections, body);
  }
  return body;
};

const sendText = (res: Response, text: string): void => {
  res.status(200).setHeader("Content-Type", "text/plain; charset=utf-8");
  res.end(text);
};

/** Runs a use case and answers with `onSuccess`, or with the problem its domain error maps to. */
const respond = async <A>(res: Response, task: TaskEither<DomainError, A>, onSuccess: (value: A) => void): Promise<void> => {
  const result = await task();
  if (result._tag === "Left") sendProblem(res, domainErrorToProblem(result.left));
  else onSuccess(result.right);
};

type Flag = "dryrun" | "force" | "verbose";

/**
 * Decodes the query options a route accepts: `true` or `false` (any case).
 * Anything else, including an unknown name, is refused: a typo such as
 * `dryRun=true` must never silently store a connection.
 */
export const decodeFlags = <F extends Flag>(
  query: Request["query"],
  allowed: readonly F[],
): { readonly flags: Record<F, boolean> } | { readonly errors: readonly FieldError[] } => {
  const flags = Object.fromEntries(allowed.map((name) => [name, false])) as Record<F, boolean>;
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (!(allowed as readonly string[]).includes(name)) {
      errors.push({
        field: `query.${name}`,
        message: allowed.length === 0 ? "this endpoint takes no query parameters" : `is not a known option (known: ${allowed.join(", ")})`,
      });
    } else if (typeof value !== "string" || !/^(true|false)$/i.test(value)) {
      errors.push({ field: `query.${name}`, message: "must be true or false, given once" });
    } else {
      flags[name as F] = value.toLowerCase() === "true";
    }
  }
  return errors.length === 0 ? { flags } : { errors };
};

const withFlags =
  <F extends Flag>(allowed: readonly F[], handler: (req: Request, res: Response, flags: Record<F, boolean>) => Promise<void>): RequestHandler =>
  async (req, res) => {
    const decoded = decodeFlags(req.query, allowed);
    if ("errors" in decoded) sendProblem(res, invalidRequest(decoded.errors));
    else await handler(req, res, decoded.flags);
  };

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

const methodNotAllowed =
  (allow: string): RequestHandler =>
  (req, res) => {
    res.setHeader("Allow", allow);
    sendProblem(res, problem(405, "method-not-allowed", "Method not allowed", `${req.method} is not allowed here; use ${allow}.`));
  };

const READ_METHODS = new Set(["GET", "HEAD"]);

/**
 * The HTTP driving adapter: docs/interface.md §1-§3 under `/rest/plugin/sdwan`, plus the
 * operations endpoints of §7. Handlers decode the query, hand the untrusted
 * path and body to a use case (which decodes them with core's codecs) and
 * map its result; all the wiring happens in the composition root.
 */
export const createApp = ({ service, logger, metrics, auth, ready, draining = () => false }: AppOptions): express.Express => {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  // Request id, security headers, one log line and metrics per request.
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    const path = req.path; // before routers rewrite it
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader("X-Request-Id", requestId);
    for (const [name, value] of SECURITY_HEADER_ENTRIES) res.setHeader(name, value);
    res.on("finish", () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routePattern(path);
      metrics.recordRequest(req.method, route, res.statusCode, seconds);
      // Never headers, query values or bodies: they may hold credentials or keys.
      logger.info(
        {
          requestId,
          method: req.method,
          route,
          status: res.statusCode,
          durationMs: Math.round(seconds * 1e6) / 1e3,
          user: (res.locals["user"] as AuthenticatedUser | undefined)?.name,
        },
        "request",
      );
    });
    next();
  });

  // Operations: no credentials, and nothing about connections in the answers.
  app.get("/healthz", (_req, res) => {
    sendJson(res, 200, { status: "ok" });
  });
  app.get("/readyz", async (_req, res) => {
    const ok = !draining() && (await ready().catch(() => false));
    sendJson(res, ok ? 200 : 503, { status: ok ? "ready" : "not ready" });
  });
  app.get("/metrics", async (_req, res) => {
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.end(await metrics.registry.metrics());
  });
  const openApiJson = JSON.stringify(openApiDocument);
  app.get(`${BASE_PATH}/openapi.json`, (_req, res) => {
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.setHeader("Cache-Control", "public, max-age=300");
    res.end(openApiJson);
  });

  const api = express.Router({ caseSensitive: true, strict: false });

  if (auth !== undefined) {
    const admit = (req: Request, res: Response, next: NextFunction, header: string | undefined, user: AuthenticatedUser | undefined): void => {
      if (user === undefined) {
        // Only a wrong password counts as a failed login; a request without credentials is the usual first step.
        if (header !== undefined) auth.throttle.recordFailure(req.socket.remoteAddress ?? "unknown");
        metrics.loginFailures.inc({ status: "401" });
        sendProblem(
          res,
          problem(401, "unauthorized", "Unauthorized", "Valid HTTP Basic credentials are required.", {
            headers: { "WWW-Authenticate": 'Basic realm="sdwan", charset="UTF-8"' },
          }),
        );
        return;
      }
      res.locals["user"] = user;
      if (user.role !== "admin" && !READ_METHODS.has(req.method)) {
        sendProblem(res, problem(403, "forbidden", "Forbidden", "This user may only read (role viewer)."));
        return;
      }
      next();
    };

    // Synchronous on purpose: a recently verified header is admitted without a promise turn (the common case);
    // only a new one waits for bcrypt.
    api.use((req, res, next) => {
      const retryAfter = auth.throttle.retryAfterSeconds(req.socket.remoteAddress ?? "unknown");
      if (retryAfter !== undefined) {
        metrics.loginFailures.inc({ status: "429" });
        sendProblem(
          res,
          problem(429, "too-many-failed-logins", "Too many failed logins", "Too many failed logins from this client; try again later.", {
            headers: { "Retry-After": String(retryAfter) },
          }),
        );
        return;
      }
      const header = req.headers.authorization;
      const user = auth.authenticator.cached(header);
      if (user !== undefined) admit(req, res, next, header, user);
      else auth.authenticator.authenticate(header).then((checked) => admit(req, res, next, header, checked), next);
    });
  }

  const jsonBody = [
    requireJson,
    express.json({ limit: BODY_LIMIT_BYTES, strict: false, type: () => true }),
  ];

  api
    .route("/connections")
    .get(
      withFlags([], (_req, res) =>
        respond(res, service.listConnections(), (connections) => {
          sendJsonText(res, 200, listBody(connections));
        }),
      ),
    )
    .post(
      jsonBody,
      withFlags(["dryrun", "force"], (req, res, { dryrun, force }) =>
        respond(res, service.addConnection(req.body, { dryRun: dryrun, force }), (outcome) =>
          sendText(res, outcome === "dry-run" ? "Dry run successful" : "Connection successfully added"),
        ),
      ),
    )
    .all(methodNotAllowed("GET, HEAD, POST"));

  api
    .route("/connections/:alias")
    .get(
      withFlags(["verbose"], (req, res, { verbose }) =>
        respond(res, service.validateConnection(req.params["alias"] as string), (result) => {
          const base = { alias: result.alias, orchestratorUrl: result.orchestratorUrl, valid: result.valid };
          sendJson(res, 200, !verbose ? base : result.valid ? { ...base, type: result.type } : { ...base, reason: result.reason });
        }),
      ),
    )
    .put(
      jsonBody,
      withFlags(["force"], (req, res, { force }) =>
        respond(res, service.updateConnection(req.params["alias"] as string, req.body, { force }), () =>
          sendText(res, "Connection successfully updated"),
        ),
      ),
    )
    .delete(
      withFlags([], (req, res) =>
        respond(res, service.deleteConnection(req.params["alias"] as string), () => {
          res.status(204).end();
        }),
      ),
    )
    .all(methodNotAllowed("GET, HEAD, PUT, DELETE"));

  api
    .route("/partner/:alias/customers")
    .get(
      withFlags([], (req, res) =>
        respond(res, service.listPartnerCustomers(req.params["alias"] as string), (customers) => {
          sendJson(res, 200, customers);
        }),
      ),
    )
    .all(methodNotAllowed("GET, HEAD"));

  app.use(BASE_PATH, api);

  app.use((req, res) => {
    sendProblem(res, problem(404, "no-such-endpoint", "Not found", `There is no endpoint at ${req.method} ${req.path}.`));
  });

  const errorHandler: ErrorRequestHandler = (error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const type = (error as { type?: unknown }).type;
    // body-parser's messages can quote the body (and so an apiKey): answer with our own words only.
    const known: Problem | undefined =
      type === "entity.too.large"
        ? problem(413, "body-too-large", "Request body too large", `The request body must be at most ${BODY_LIMIT_BYTES} bytes.`)
        : type === "entity.parse.failed"
          ? invalidRequest([{ field: "body", message: "is not valid JSON" }])
          : type === "charset.unsupported" || type === "encoding.unsupported"
            ? problem(415, "unsupported-media-type", "Unsupported media type", "The request body must be JSON in UTF-8.")
            : type === "request.aborted" || type === "request.size.invalid"
              ? invalidRequest([{ field: "body", message: "was not received completely" }])
              : undefined;
    if (known !== undefined) {
      sendProblem(res, known);
      return;
    }
    logger.error({ errorName: (error as Error | undefined)?.name ?? typeof error }, "unexpected error while answering a request");
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendProblem(res, problem(500, "internal-error", "Internal error", "The service failed to answer this request."));
  };
  app.use(errorHandler);

  return app;
};
