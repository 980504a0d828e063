import { auditNotes, auditPaths } from "./openapi/audit.js";
import { connectionsNotes, connectionsPaths } from "./openapi/connections.js";
import { customersPaths } from "./openapi/customers.js";
import { eventsPaths } from "./openapi/events.js";
import { grantsNotes, grantsPaths } from "./openapi/grants.js";
import { healthNotes, healthPaths } from "./openapi/health.js";
import { problemNotes } from "./openapi/problems.js";
import { describe } from "./openapi/schema-of.js";
import { sessionNotes, sessionPaths } from "./openapi/session.js";
import { BODY_LIMIT_BYTES } from "./openapi/shared.js";
import { tokensNotes, tokensPaths } from "./openapi/tokens.js";
import { webhooksNotes, webhooksPaths } from "./openapi/webhooks.js";

/**
 * The OpenAPI 3.1 document of the interface, served at
 * `/rest/plugin/sdwan/openapi.json`. Every answer's schema is generated from its codec in core's wire
 * (`@sdwan-connections/core/wire`, by ./openapi/schema-of.ts: a named codec is a component), with each
 * resource's notes for what io-ts cannot say; each request body's from the core codec that decodes it. The HTTP tests check every response they get against it, and a property test checks that it
 * and core's codecs accept the same request bodies.
 */

export const BASE_PATH = "/rest/plugin/sdwan";
export { BODY_LIMIT_BYTES };

const { described: paths, components } = describe(
  {
    ...connectionsPaths,
    ...auditPaths,
    ...healthPaths,
    ...eventsPaths,
    ...sessionPaths,
    ...tokensPaths,
    ...grantsPaths,
    ...webhooksPaths,
    ...customersPaths,
  },
  {
    ...connectionsNotes,
    ...auditNotes,
    ...healthNotes,
    ...sessionNotes,
    ...tokensNotes,
    ...grantsNotes,
    ...webhooksNotes,
    ...problemNotes,
  },
);

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
    schemas: components,
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
