import type { Groups, Logger, Metrics, Network, OidcConfig, Tracing } from "@sdwan-connections/composition";
import type { Core } from "@sdwan-connections/core";
import express from "express";
import type { Authenticator } from "./auth/authenticator.js";
import type { BearerAuthenticator } from "./auth/bearer.js";
import type { SessionTokens } from "./auth/console-session.js";
import type { LoginThrottle } from "./auth/throttle.js";
import { authenticate } from "./middleware/authenticate.js";
import { authorize, needs, readableBy } from "./middleware/authorize.js";
import { errorHandler, noSuchEndpoint } from "./middleware/errors.js";
import { clientAddressBehind } from "./middleware/client-address.js";
import { actorOf, requestContext } from "./middleware/request-context.js";
import { traceRequests } from "./middleware/trace-requests.js";
import { BASE_PATH } from "./openapi.js";
import { connectionsRoutes } from "./routes/connections.js";
import { auditRoutes } from "./routes/audit.js";
import { authConfigRoutes } from "./routes/auth-config.js";
import { healthRoutes } from "./routes/health.js";
import { eventsRoutes, type EventStreams } from "./routes/events.js";
import { customersRoutes } from "./routes/customers.js";
import { consoleRoutes } from "./routes/console.js";
import { meRoutes } from "./routes/me.js";
import { sessionRoutes } from "./routes/session.js";
import { tokensRoutes } from "./routes/tokens.js";
import { grantsRoutes } from "./routes/grants.js";
import { webhooksRoutes } from "./routes/webhooks.js";

const noGroups = (): Groups => new Map();
import { operationsRoutes } from "./routes/operations.js";

export interface AppOptions {
  readonly service: Core;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Credentials check and failed-login throttle; `undefined` serves without authentication (benchmarks only). */
  readonly auth:
    | {
        readonly authenticator: Authenticator;
        readonly throttle: LoginThrottle;
        readonly bearer?: BearerAuthenticator | undefined;
        readonly sessions?: SessionTokens;
        /** SDWAN_GROUPS_FILE's groups, as read last (none when not given). */
        readonly groups: () => Groups;
      }
    | undefined;
  /** The OpenID provider (SDWAN_OIDC_*), told to the console by GET /auth/config. */
  readonly oidc?: OidcConfig | undefined;
  /** Whether the store answers now (for `/readyz`). */
  readonly ready: () => Promise<boolean>;
  /** True once shutdown began: `/readyz` then answers 503 so load balancers stop sending. */
  readonly draining?: () => boolean;
  /** The background health checks' interval, reported by GET /health/connections (undefined: off). */
  readonly healthIntervalMs?: number | undefined;
  /** SDWAN_TRUSTED_PROXIES: peers whose X-Forwarded-For names the client (none by default). */
  readonly trustedProxies?: readonly Network[];
  /** The operator console's built files, served at /console/ (undefined: no console). */
  readonly consoleDirectory?: string | undefined;
  /** GET /events: the open streams (ended first at shutdown), their cap and heartbeat; 200 streams, 15 s when not given. */
  readonly events?: { readonly streams: EventStreams; readonly maxStreams: number; readonly heartbeatMs: number };
  /** OpenTelemetry traces (OTEL_*); undefined: off, and no middleware is mounted for them. */
  readonly tracing?: Tracing | undefined;
}

/**
 * The REST driver: docs/interface.md §1-§3 under `/rest/plugin/sdwan`, plus
 * the operations endpoints of §7 and the operator console's files (§8).
 * Middleware decodes what HTTP adds (credentials, query options, the JSON
 * body); each route hands the untrusted path and body to one use case, which
 * decodes them with core's codecs.
 */
export const createApp = ({
  service,
  logger,
  metrics,
  auth,
  ready,
  draining = () => false,
  healthIntervalMs,
  consoleDirectory,
  trustedProxies = [],
  oidc,
  events = { streams: new Set(), maxStreams: 200, heartbeatMs: 15_000 },
  tracing,
}: AppOptions): express.Express => {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  if (tracing !== undefined) app.use(traceRequests(tracing));
  app.use(requestContext({ logger, metrics, clientAddress: clientAddressBehind(trustedProxies) }));
  operationsRoutes(app.router, { metrics, ready, draining });
  // The console signs in at the provider only when it has a client there (GET /auth/config says so).
  if (consoleDirectory !== undefined)
    consoleRoutes(app.router, consoleDirectory, oidc?.clientId === undefined ? undefined : new URL(oidc.issuer).origin);
  const api = express.Router({ caseSensitive: true, strict: false });
  // Before the credentials: how to get some.
  authConfigRoutes(api, oidc);
  if (auth !== undefined)
    api.use(
      authenticate({ ...auth, serviceTokens: service.tokens, metrics }),
      authorize({
        grants: service.grants,
        groups: auth.groups,
        // A refused write is audited as an attempt: who, the request id, its method and the route's connection.
        onForbidden: (req, res, alias) =>
          service.audit.forbidden(actorOf(res.locals), {
            method: req.method,
            ...(alias === undefined ? {} : { alias }),
          }),
      }),
    );
  // Every resource's routes are the API router's own: a request enters two routers, the app's and this one, not one
  // more per resource before its own (http bench profile and A/B of the list: a nested router's level was about 5% of
  // its CPU).
  connectionsRoutes(api, service.connections, service.audit, auth?.throttle);
  customersRoutes(api, service.connections);
  auditRoutes(api, service.audit);
  healthRoutes(api, service.health, healthIntervalMs);
  meRoutes(api, service.grants, auth?.groups ?? noGroups);
  sessionRoutes(api, auth?.sessions);
  eventsRoutes(api, service.events, {
    ...events,
    draining,
    ...(auth === undefined
      ? {}
      : {
          readableBy: readableBy({ grants: service.grants, groups: auth.groups }),
          onGrantsChange: service.grants.onChange,
        }),
    watch: metrics.watchEventStreams,
  });
  tokensRoutes(api, auth === undefined ? undefined : service.tokens);
  grantsRoutes(api, service, auth?.groups ?? noGroups);
  webhooksRoutes(api, service.webhooks);
  // A request no route answers is decided as any other route's: a role to read, admin to write.
  api.use(needs("role"));
  app.use(BASE_PATH, api);
  app.use(noSuchEndpoint);
  app.use(errorHandler(logger));
  return app;
};
