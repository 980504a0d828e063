import type { Groups, Logger, Metrics, Network, OidcConfig } from "@sdwan-connections/composition";
import type { ConnectionService, Webhooks } from "@sdwan-connections/core";
import express from "express";
import type { Authenticator } from "./auth/authenticator.js";
import type { BearerAuthenticator } from "./auth/bearer.js";
import type { SessionTokens } from "./auth/console-session.js";
import type { ServiceTokens } from "./auth/service-tokens.js";
import type { LoginThrottle } from "./auth/throttle.js";
import { authenticate } from "./middleware/authenticate.js";
import { authorize } from "./middleware/authorize.js";
import { errorHandler, noSuchEndpoint } from "./middleware/errors.js";
import { auditForbidden } from "./middleware/audit-forbidden.js";
import { clientAddressBehind } from "./middleware/client-address.js";
import { requestContext } from "./middleware/request-context.js";
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
  readonly service: ConnectionService;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Credentials check and failed-login throttle; `undefined` serves without authentication (benchmarks only). */
  readonly auth:
    | {
        readonly authenticator: Authenticator;
        readonly throttle: LoginThrottle;
        readonly bearer?: BearerAuthenticator | undefined;
        readonly sessions?: SessionTokens;
        readonly serviceTokens?: ServiceTokens;
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
  /** Webhooks' use cases (SPEC §9); undefined: no /webhooks endpoints (an embedder's app without them). */
  readonly webhooks?: Webhooks | undefined;
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
  webhooks,
}: AppOptions): express.Express => {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);

  app.use(requestContext({ logger, metrics, clientAddress: clientAddressBehind(trustedProxies) }));
  app.use(operationsRoutes({ metrics, ready, draining }));
  // The console signs in at the provider only when it has a client there (GET /auth/config says so).
  if (consoleDirectory !== undefined)
    app.use(consoleRoutes(consoleDirectory, oidc?.clientId === undefined ? undefined : new URL(oidc.issuer).origin));
  const api = express.Router({ caseSensitive: true, strict: false });
  // Before the credentials: how to get some.
  api.use(authConfigRoutes(oidc));
  if (auth !== undefined)
    api.use(
      authenticate({ ...auth, metrics }),
      authorize({ grants: service.grants, groups: auth.groups, onForbidden: auditForbidden(service) }),
    );
  api.use(
    connectionsRoutes(service, auth?.throttle),
    customersRoutes(service),
    auditRoutes(service),
    healthRoutes(service, healthIntervalMs),
    meRoutes(service.grants, auth?.groups ?? noGroups),
    sessionRoutes(auth?.sessions),
    eventsRoutes(service, { ...events, draining }),
    tokensRoutes(auth?.serviceTokens, service),
    grantsRoutes(service, auth?.groups ?? noGroups),
    webhooksRoutes(webhooks, service),
  );
  app.use(BASE_PATH, api);
  app.use(noSuchEndpoint);
  app.use(errorHandler(logger));
  return app;
};
