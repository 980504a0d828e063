import { auditPaths, auditSchemas } from "./openapi/audit.js";
import { connectionsPaths, connectionsSchemas } from "./openapi/connections.js";
import { customersPaths } from "./openapi/customers.js";
import { eventsPaths } from "./openapi/events.js";
import { grantsPaths, grantsSchemas } from "./openapi/grants.js";
import { healthPaths, healthSchemas } from "./openapi/health.js";
import { problemsSchemas } from "./openapi/problems.js";
import { describe } from "./openapi/schema-of.js";
import { sessionPaths } from "./openapi/session.js";
import { BODY_LIMIT_BYTES } from "./openapi/shared.js";
import { tokensPaths, tokensSchemas } from "./openapi/tokens.js";
import { webhooksPaths, webhooksSchemas } from "./openapi/webhooks.js";

/**
 * The OpenAPI 3.1 document of the interface, served at
 * `/rest/plugin/sdwan/openapi.json`. Its limits, patterns, enums, answer texts
 * and the Customer fields come from core's constants and codecs, its problem
 * types, titles and statuses from errors.ts's table, never copied by hand; the
 * HTTP tests check every response they get against it, and a property test
 * checks that it and core's codecs accept the same request bodies.
 */

/** Where the API is served; the operations endpoints (/healthz, /readyz, /metrics) sit at the root. */
export const BASE_PATH = "/rest/plugin/sdwan";
export { BODY_LIMIT_BYTES };

const { described: paths, components } = describe({
  ...connectionsPaths,
  ...auditPaths,
  ...healthPaths,
  ...eventsPaths,
  ...sessionPaths,
  ...tokensPaths,
  ...grantsPaths,
  ...webhooksPaths,
  ...customersPaths,
});

export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "sdwan-connections",
    version: "1.0.0",
    description:
      "Manage named connections to SD-WAN orchestrators and list the customers behind partner connections. " +
      "Every operation needs HTTP Basic credentials, a bearer JWT of the configured OpenID provider, or the console's session token from GET /session; viewers may only use GET. apiKeys are accepted on add and update and never returned.",
    license: { name: "Apache-2.0", identifier: "Apache-2.0" },
  },
  servers: [{ url: BASE_PATH }],
  security: [{ basic: [] }, { bearer: [] }, { consoleSession: [] }, { serviceToken: [] }],
  paths,
  components: {
    securitySchemes: {
      basic: { type: "http", scheme: "basic" },
      bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      consoleSession: { type: "http", scheme: "bearer", description: "A token from GET /session." },
      serviceToken: { type: "http", scheme: "bearer", description: "A service token from POST /tokens (`sdw_…`)." },
    },
    schemas: {
      ...connectionsSchemas,
      ...components,
      ...healthSchemas,
      ...auditSchemas,
      ...tokensSchemas,
      ...grantsSchemas,
      ...webhooksSchemas,
      ...problemsSchemas,
    },
  },
} as const;

const API_TEMPLATES = Object.keys(openApiDocument.paths).map((template) => ({
  template,
  // The router is not strict, so a trailing slash reaches the same route.
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}/?$`),
}));

/** The documented path template (`/connections/{alias}`) that a path below `BASE_PATH` is served by, if any. */
export const apiTemplateOf = (apiPath: string): string | undefined =>
  API_TEMPLATES.find(({ pattern }) => pattern.test(apiPath))?.template;
