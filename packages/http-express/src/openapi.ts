import {
  ALIAS_MAX_LENGTH,
  ANSWER_TEXT,
  AUDIT_ACTIONS,
  DELIVERY_STATUSES,
  GRANT_VERBS,
  SUBJECT_PATTERN,
  AUDIT_OUTCOMES,
  AUDITED_FIELDS,
  KEY_EXPIRY_SOURCES,
  CONNECTION_KINDS,
  HEALTH_CHECK_OUTCOMES,
  HEALTH_STATES,
  VALIDATION_OUTCOMES,
  EVENT_TYPES,
  ALIAS_PATTERN,
  API_KEY_MAX_LENGTH,
  API_KEY_REF_MAX_LENGTH,
  API_KEY_PATTERN,
  AUDIT_PAGE_MAX,
  HEALTH_HISTORY,
  CUSTOMER_FIELDS,
  Customer,
  ORCHESTRATOR_URL_MAX_LENGTH,
  ORCHESTRATOR_URL_PATTERN,
} from "@sdwan-connections/core";
import { ORCHESTRATOR_PROBLEMS, PROBLEMS, problemType, type ProblemSlug } from "./errors.js";

/**
 * The OpenAPI 3.1 document of the interface, served at
 * `/rest/plugin/sdwan/openapi.json`. Its limits, patterns, enums, answer texts
 * and the Customer fields come from core's constants and codecs, its problem
 * types, titles and statuses from errors.ts's table, never copied by hand; the
 * HTTP tests check every response they get against it, and a property test
 * checks that it and core's codecs accept the same request bodies.
 */

const PROBLEM_SLUGS = Object.keys(PROBLEMS) as ProblemSlug[];
const PROBLEM_TYPES = PROBLEM_SLUGS.map(problemType);
const PROBLEM_TITLES = [...new Set(Object.values(PROBLEMS).map(({ title }) => title))];
const PROBLEM_STATUSES = [...new Set(Object.values(PROBLEMS).map(({ status }) => status))];

/** Where the API is served; the operations endpoints (/healthz, /readyz, /metrics) sit at the root. */
export const BASE_PATH = "/rest/plugin/sdwan";
/** The largest request body accepted (413 above it): part of the interface, so defined with its document. */
export const BODY_LIMIT_BYTES = 64 * 1024;
const webhookProperties = {
  id: { type: "string", format: "uuid" },
  url: { type: "string" },
  types: { type: "array", items: { type: "string" } },
  kind: { type: "string", enum: ["cloudevents", "opennms"] },
  createdAt: { type: "string", format: "date-time" },
  disabledAt: {
    type: ["string", "null"],
    format: "date-time",
    description: "When the receiver answered 410 Gone: nothing is delivered from then on.",
  },
} as const;

const attemptProperties = {
  at: { type: "string", format: "date-time" },
  status: { type: ["integer", "null"], description: "The receiver's HTTP status; null when none came." },
  error: { type: ["string", "null"], description: "Why no answer came (a network error code, timeout)." },
  latencyMs: { type: "number" },
} as const;

const webhookIdParameter = {
  name: "id",
  in: "path",
  required: true,
  description: "The webhook's id.",
  schema: { type: "string" },
} as const;

const problem = (description: string) => ({
  description,
  content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
});
/** A text/plain answer that is one of `values`. */
const text = (description: string, values: readonly string[]) => ({
  description,
  content: { "text/plain": { schema: { type: "string", enum: values } } },
});

/** Each Customer field's JSON Schema type, read off core's codec by what it accepts. */
const customerProperties = Object.fromEntries(
  Object.entries(Customer.type.props).map(([field, codec]) => {
    const probes: readonly (readonly [string, unknown])[] = [
      ["string", ""],
      ["integer", 1],
      ["number", 0.5],
      ["boolean", true],
      ["null", null],
    ];
    const types = probes.filter(([, value]) => codec.is(value)).map(([type]) => type);
    // A codec that takes 0.5 takes every number: "integer" is then implied.
    const schemaTypes = types.includes("number") ? types.filter((type) => type !== "integer") : types;
    return [field, { type: schemaTypes.length === 1 ? schemaTypes[0] : schemaTypes }];
  }),
);

/** A connection's version: GET answers it as an ETag, PUT and DELETE may require it (RFC 9110 §13.1.1). */
const versioned = {
  ifMatch: {
    name: "If-Match",
    in: "header",
    required: false,
    description:
      'Write only if the connection is still at a version named here: `"3"` (a strong ETag from GET), a list of them, or `*` (any). Without it, writes as the original interface does. A weak or unknown tag matches nothing.',
    schema: { type: "string" },
  },
  etag: {
    ETag: {
      schema: { type: "string", pattern: '^"[1-9][0-9]*"$' },
      description:
        "The connection's version, a strong entity tag naming one state of one connection's life (never one of a connection deleted before): send it back in If-Match.",
    },
  },
  mismatch: problem(
    "The connection is no longer at a version If-Match names (another writer changed it): nothing was changed; GET it again.",
  ),
} as const;

/** Lists are answered once per change: an ETag to revalidate with, and br or gzip when asked for (above 1 KiB). */
const conditional = {
  parameters: [
    {
      name: "If-None-Match",
      in: "header",
      required: false,
      description: "An ETag of an earlier answer: 304 while the list is unchanged.",
      schema: { type: "string" },
    },
  ],
  headers: {
    ETag: { schema: { type: "string" }, description: "A weak entity tag of this list; the same for every encoding." },
    Vary: { schema: { type: "string", const: "Accept-Encoding" } },
    "Content-Encoding": {
      schema: { type: "string", enum: ["br", "gzip"] },
      description: "Negotiated from Accept-Encoding (q=0 honoured); absent for identity.",
    },
  },
  notModified: { description: "Not modified: the client's copy (If-None-Match) is current. No body." },
} as const;

const commonErrors = {
  "400": problem("Invalid input: malformed JSON, a missing, invalid or unknown field or query option, or a bad alias."),
  "401": {
    ...problem(
      "No or wrong HTTP Basic credentials, or a bearer token refused (the detail says why: expired, audience, issuer, signature, algorithm; a service token unknown, revoked or expired; never the token).",
    ),
    headers: {
      "WWW-Authenticate": {
        schema: { type: "string" },
        description:
          'Basic realm="sdwan"; left out when the request carries X-Requested-With (a script such as the console asks, so the browser opens no dialog). With an OpenID provider configured also Bearer realm="sdwan", with error="invalid_token" when a token was refused; a refused service token always gets that Bearer challenge.',
      },
    },
  },
  "429": {
    ...problem("Too many failed logins from this client."),
    headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds until the client may try again." } },
  },
  "503": {
    ...problem(
      "The connection store cannot be used right now; or (identity-provider-unavailable) a bearer token cannot be checked: the OpenID provider's keys cannot be read (Basic credentials still work).",
    ),
    headers: {
      "Retry-After": {
        schema: { type: "integer" },
        description: "With identity-provider-unavailable: seconds before the provider is asked again.",
      },
    },
  },
};
/** A connection the principal reads without the verb asked (SPEC §11). */
const verbMissing = problem("The principal may read this connection but not do this (the detail names the verb).");
const writeErrors = {
  "403": problem(
    "The user's role (viewer) may only read and no grant lets it do this (the detail names the verb); an add: no manage grant covers the alias.",
  ),
  "413": problem(`The request body is larger than ${BODY_LIMIT_BYTES / 1024} KiB.`),
  "415": problem("The request body is not JSON."),
  "422": problem(
    "Validation failed: the orchestrator refused the key, failed, did not answer in time or could not be reached; the detail says which (use force=true to save anyway).",
  ),
};
const aliasParameter = {
  name: "alias",
  in: "path",
  required: true,
  description: "The connection's alias, matched ignoring case.",
  schema: { $ref: "#/components/schemas/Alias" },
};
const flag = (name: string, description: string) => ({
  name,
  in: "query",
  required: false,
  description: `${description} \`true\` or \`false\` (any case); any other value or an unknown option is 400.`,
  schema: { type: "string", enum: ["true", "false"], default: "false" },
});
/** What a store holds of a connection beside its alias and URL (never the key). */
const storedProperties = {
  version: {
    type: "integer",
    minimum: 1,
    description:
      "The ETag's value. Every change (adding included) gives a new version, greater than any the store gave before, so a version of a deleted connection never matches the alias added again; an update that changes nothing keeps it.",
  },
  apiKeySetAt: {
    type: ["string", "null"],
    format: "date-time",
    description: "When the stored key was set (UTC); null for a key stored before keys were dated.",
  },
  apiKeyFingerprint: {
    type: "string",
    pattern: "^[A-Za-z0-9_-]{43}$",
    description:
      "HMAC-SHA-256 of the stored key under a key of the connection (derived from its lower-cased alias and the master key), base64url. The connection's key gives the same fingerprint in every instance of a deployment; the same key on another connection gives another; it cannot be reversed or computed without the master key. It changes when the master key does.",
  },
  apiKeyExpiresAt: {
    type: ["string", "null"],
    format: "date-time",
    description:
      "When the key expires (UTC), as far as it is known: declared (apiKeyExpiresAt on add or update), the key's own JWT `exp`, or the orchestrator's token list (asked by the background checks); null when unknown.",
  },
  apiKeyExpirySource: {
    type: ["string", "null"],
    enum: [...KEY_EXPIRY_SOURCES, null],
    description:
      "Where apiKeyExpiresAt comes from: `declared`, `token` (the key's JWT exp, read, never verified) or `orchestrator`; null when unknown.",
  },
  keyRenewal: {
    type: "string",
    enum: ["auto", "off"],
    description:
      "Whether the service renews the key through the orchestrator before it expires (SPEC §12): `auto`, or `off` (the default).",
  },
  apiKeyRef: {
    type: "string",
    description:
      "Where the key is kept when it is not in the store (`file:NAME`, `env:NAME`); absent for a stored key. The fingerprint and expiry are of the key read from it now.",
  },
};
const keyRenewalProperty = {
  type: "string",
  enum: ["auto", "off"],
  description:
    "Optional: `auto` renews the key through the orchestrator SDWAN_KEY_RENEW_DAYS before it expires (customer keys by refresh, partner keys by create, download and revoke after SDWAN_KEY_RENEW_OVERLAP_H); `off` (a new connection's default) does not. Any `manage` right may set it; the original's clients never send it.",
};
const apiKeyRefProperty = {
  type: "string",
  maxLength: API_KEY_REF_MAX_LENGTH,
  pattern: "^(env:SDWAN_APIKEY_[A-Za-z0-9_]+|file:[^/].*)$",
  description:
    "Where the key is kept instead of the store (SPEC §12), admin only: `file:NAME` (a file in SDWAN_APIKEY_DIR, such as a mounted Kubernetes Secret; its real path must stay inside that directory and outside the data directory, and it may not be or decode to a master key) or `env:NAME` (a variable SDWAN_APIKEY_…). Read whenever the key is used, never stored, re-read within 60 s; excludes apiKey.",
};
const apiKeyExpiresAtProperty = {
  type: "string",
  format: "date-time",
  description:
    "Optional: when the key expires, RFC 3339 with an offset (e.g. 2027-01-31T00:00:00Z). A time already past is accepted (the key-expired warning follows). A new key without it clears the one stored; the original's clients never send it.",
};
const serviceTokenProperties = {
  id: { type: "string", format: "uuid" },
  name: { type: "string" },
  role: {
    type: ["string", "null"],
    enum: ["admin", "viewer", null],
    description: "null for a token created with grants and no role: it may do only what its grants give.",
  },
  expiresAt: { type: "string", format: "date-time" },
  lastUsedAt: {
    type: ["string", "null"],
    format: "date-time",
    description: "Within a minute of the last use; null when never used.",
  },
  createdBy: { type: "string", description: "The audit actor that created it." },
  createdAt: { type: "string", format: "date-time" },
};
const jsonBody = (ref: string) => ({
  required: true,
  content: { "application/json": { schema: { $ref: ref } } },
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
  paths: {
    "/connections": {
      get: {
        operationId: "listConnections",
        summary: "List the connections, sorted by alias ignoring case.",
        parameters: conditional.parameters,
        responses: {
          "200": {
            description: "Every connection's alias and orchestrator URL.",
            headers: conditional.headers,
            content: {
              "application/json": {
                schema: { type: "array", items: { $ref: "#/components/schemas/ConnectionSummary" } },
              },
            },
          },
          "304": conditional.notModified,
          ...commonErrors,
        },
      },
      post: {
        operationId: "addConnection",
        summary: "Add a connection, after the orchestrator accepted its key (unless force=true).",
        parameters: [
          flag("dryrun", "Validate against the orchestrator and check the alias is free, but store nothing."),
          flag("force", "Store without asking the orchestrator."),
        ],
        requestBody: jsonBody("#/components/schemas/AddConnection"),
        responses: {
          "200": text("Added (or, with dryrun=true, would be added).", [ANSWER_TEXT.added, ANSWER_TEXT["dry-run"]]),
          ...commonErrors,
          ...writeErrors,
          "409": problem("A connection with this alias (in any case) already exists."),
        },
      },
    },
    "/connections/{alias}": {
      parameters: [aliasParameter],
      get: {
        operationId: "validateConnection",
        summary:
          "Validate a connection: ask its orchestrator, now, whether the stored key is accepted (or, with stored=true, show it as stored).",
        parameters: [
          flag(
            "verbose",
            "Add `type` (when valid) or `reason` (when not), the connection's `version` and `apiKeySetAt`.",
          ),
          flag(
            "stored",
            "Answer the connection as stored (`version`, `apiKeySetAt`, `apiKeyFingerprint`) without asking the orchestrator: no `valid`, no orchestrator call (an addition to the original).",
          ),
        ],
        responses: {
          "200": {
            description:
              "The validation's result; an orchestrator that refuses or cannot be reached gives valid=false. With stored=true, the stored connection.",
            headers: versioned.etag,
            content: {
              "application/json": {
                schema: {
                  oneOf: [
                    { $ref: "#/components/schemas/Validation" },
                    { $ref: "#/components/schemas/StoredConnection" },
                  ],
                },
              },
            },
          },
          ...commonErrors,
          "403": verbMissing,
          "404": problem("No connection with this alias (or none the principal may read: the same answer)."),
        },
      },
      put: {
        operationId: "updateConnection",
        summary: "Change a connection's orchestrator URL and/or key; omitted fields keep their stored value.",
        parameters: [
          flag(
            "dryrun",
            "Validate the connection as the change would make it against the orchestrator, but store nothing (an addition to the original).",
          ),
          flag("force", "Store without asking the orchestrator."),
          versioned.ifMatch,
        ],
        requestBody: jsonBody("#/components/schemas/UpdateConnection"),
        responses: {
          "200": text("Updated (or, with dryrun=true, would be updated).", [
            ANSWER_TEXT.updated,
            ANSWER_TEXT["dry-run"],
          ]),
          ...commonErrors,
          ...writeErrors,
          "404": problem("No connection with this alias."),
          "412": versioned.mismatch,
        },
      },
      delete: {
        operationId: "deleteConnection",
        summary: "Delete a connection.",
        parameters: [versioned.ifMatch],
        responses: {
          "204": { description: "Deleted." },
          ...commonErrors,
          "403": writeErrors["403"],
          "404": problem("No connection with this alias."),
          "412": versioned.mismatch,
        },
      },
    },
    "/connections/{alias}/key-check": {
      parameters: [aliasParameter],
      post: {
        operationId: "checkApiKey",
        summary:
          "Tell whether the stored apiKey is the one given, without showing it (compared in constant time, the orchestrator not asked). Admins only; checks that do not match count against the client as failed logins do.",
        requestBody: jsonBody("#/components/schemas/KeyCheck"),
        responses: {
          "200": {
            description: "Whether the given key is the stored one.",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["matches"],
                  additionalProperties: false,
                  properties: { matches: { type: "boolean" } },
                },
              },
            },
          },
          ...commonErrors,
          "403": writeErrors["403"],
          "404": problem("No connection with this alias."),
          "413": writeErrors["413"],
          "415": writeErrors["415"],
          "429": {
            ...problem("Too many failed logins, or too many key checks that did not match, from this client."),
            headers: commonErrors["429"].headers,
          },
        },
      },
    },
    "/audit": {
      get: {
        operationId: "listAudit",
        summary:
          "The audit trail, newest first: every add, dry run, update, delete and master-key rotation, failed ones included. Admins only. Kept per SDWAN_AUDIT_MAX_ENTRIES and SDWAN_AUDIT_MAX_AGE_DAYS.",
        parameters: [
          {
            name: "alias",
            in: "query",
            required: false,
            description: "Only this connection's entries (any case).",
            schema: { $ref: "#/components/schemas/Alias" },
          },
          {
            name: "since",
            in: "query",
            required: false,
            description:
              "Only entries at or after this time: RFC 3339, a date-time with an offset or a full date (its midnight UTC).",
            schema: { type: "string", format: "date-time" },
          },
          {
            name: "limit",
            in: "query",
            required: false,
            description: "At most this many entries (default 100).",
            schema: { type: "integer", minimum: 1, maximum: AUDIT_PAGE_MAX },
          },
          {
            name: "before",
            in: "query",
            required: false,
            description: "The `next` of the previous page.",
            schema: { type: "string" },
          },
        ],
        responses: {
          "200": {
            description: "A page of entries and the `before` of the next page (null on the last).",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["entries", "next"],
                  additionalProperties: false,
                  properties: {
                    entries: { type: "array", items: { $ref: "#/components/schemas/AuditEntry" } },
                    next: { type: ["string", "null"] },
                  },
                },
              },
            },
          },
          ...commonErrors,
          "403": problem("Only admins may read the audit trail."),
        },
      },
    },
    "/health/connections": {
      get: {
        operationId: "listConnectionsHealth",
        summary:
          "Every connection's last known health: its state (valid, invalid, unreachable, unknown until checked), since when, and its last checks, newest first. Every validation (GET /connections/{alias}) is a check; background checks run every SDWAN_HEALTH_INTERVAL_S seconds (300 by default; 0 turns them off). A deleted connection's health goes with it.",
        responses: {
          "200": {
            description: "The interval (null when the checks are off) and one entry per connection, sorted by alias.",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["intervalSeconds", "connections"],
                  additionalProperties: false,
                  properties: {
                    intervalSeconds: { type: ["integer", "null"] },
                    connections: { type: "array", items: { $ref: "#/components/schemas/ConnectionHealth" } },
                  },
                },
              },
            },
          },
          ...commonErrors,
        },
      },
    },
    "/auth/config": {
      get: {
        operationId: "authConfig",
        summary:
          "How a client may sign in, asked without credentials: the OpenID provider and the console's public client (authorization code + PKCE), or null for HTTP Basic only.",
        security: [],
        responses: {
          "200": {
            description: "The sign-in configuration.",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["oidc"],
                  additionalProperties: false,
                  properties: {
                    oidc: {
                      oneOf: [
                        { type: "null" },
                        {
                          type: "object",
                          required: ["issuer", "clientId", "scopes"],
                          additionalProperties: false,
                          properties: {
                            issuer: { type: "string", format: "uri" },
                            clientId: { type: "string" },
                            scopes: { type: "array", items: { type: "string" } },
                          },
                        },
                      ],
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    "/events": {
      get: {
        operationId: "followEvents",
        summary:
          "The event log (the audit trail's changes, health state changes and key-expiry warnings) as Server-Sent Events, any authenticated user: what came after Last-Event-ID first, then every new event as it is written, on any instance. Each event is `id:` (the audit id), `event:` (the type without `org.sdwan-connections.`) and `data:` (a CloudEvents 1.0 JSON event); `event: reset` when the Last-Event-ID is older than the oldest entry kept. A comment line at least every 15 s; never compressed. At most SDWAN_EVENTS_MAX_STREAMS streams per instance, a tenth of them per principal; a replay is read page by page as the client takes it; an open stream ends within a second of its token's revocation or expiry and narrows with its grants; a shutdown ends them first.",
        parameters: [
          {
            name: "types",
            in: "query",
            required: false,
            description: `Only these types, comma-separated, \`*\` a wildcard (e.g. \`connection.health.*\`); each must name a known type: ${EVENT_TYPES.join(", ")}.`,
            schema: { type: "string" },
          },
          {
            name: "alias",
            in: "query",
            required: false,
            description: "Only the events of connections whose alias matches this glob (any case, `*` a wildcard).",
            schema: { type: "string", pattern: "^[A-Za-z0-9._*-]{1,64}$" },
          },
          {
            name: "lastEventId",
            in: "query",
            required: false,
            description:
              "As the Last-Event-ID header (which wins when both are given), for clients that cannot set headers.",
            schema: { type: "string" },
          },
          {
            name: "Last-Event-ID",
            in: "header",
            required: false,
            description: "The id of the last event the client has: what came after it is sent first.",
            schema: { type: "string" },
          },
        ],
        responses: {
          "200": {
            description:
              "An endless text/event-stream. Each event's `data:` is one CloudEvent: `specversion` 1.0, `id` (the audit id), `source`, `type` (org.sdwan-connections.connection.added|updated|deleted with data {version, fields, actor, forced}; org.sdwan-connections.connection.health.changed with data {from, to, reason, checkedAt}; org.sdwan-connections.connection.key.expiring|expired with data {expiresAt, daysLeft, source}; org.sdwan-connections.connection.key.renewed (the key renewed, a new version, actor `renewal`) and org.sdwan-connections.connection.key.renewalFailed (with the reason; the expiry warnings go on); every data also orchestratorUrl, the connection's as it was, when known), `subject` (the alias), `time`, `datacontenttype` application/json. Never a key.",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          ...commonErrors,
          "429": {
            ...problem(
              "Too many failed logins from this client, or this instance already serves SDWAN_EVENTS_MAX_STREAMS event streams (or a tenth of them to this principal).",
            ),
            headers: commonErrors["429"].headers,
          },
          "503": problem("The connection store cannot be used right now, or the service is shutting down."),
        },
      },
    },
    "/me": {
      get: {
        operationId: "whoAmI",
        summary:
          "The user the credentials belong to and their role (admin or viewer): how a client checks a sign-in and learns what it may offer.",
        parameters: [
          flag(
            "grants",
            "Add `grants`: the grants to the principal or to one of its groups, as `{pattern, verb}` (SPEC §11).",
          ),
        ],
        responses: {
          "200": {
            description: "The signed-in user.",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["user", "role"],
                  additionalProperties: false,
                  properties: {
                    user: {
                      type: "string",
                      description: "A local user's name, or the principal of a bearer token (oidc:NAME).",
                    },
                    role: {
                      enum: ["admin", "viewer", null],
                      description: "null: a provider's user in no admin or viewer group (it may read nothing).",
                    },
                    grants: {
                      type: "array",
                      description: "With grants=true only: what the principal may do beside its role.",
                      items: { $ref: "#/components/schemas/PatternGrant" },
                    },
                  },
                },
              },
            },
          },
          ...commonErrors,
        },
      },
    },
    "/session": {
      get: {
        operationId: "startConsoleSession",
        summary:
          "A console session for the Basic credentials given: the user, their role and a token (`sdc_…`, 8 hours) sent as `Authorization: Bearer` instead of the password. Signed with a key derived from SDWAN_MASTER_KEY (so every instance sharing it accepts it), or a random key per process without one. Only Basic credentials start one: a session never extends itself.",
        security: [{ basic: [] }],
        responses: {
          "200": {
            description: "The session (never cached).",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["user", "role", "token", "expiresAt"],
                  additionalProperties: false,
                  properties: {
                    user: { type: "string" },
                    role: { type: "string", enum: ["admin", "viewer"] },
                    token: { type: "string", pattern: "^sdc_" },
                    expiresAt: { type: "string", format: "date-time" },
                  },
                },
              },
            },
          },
          ...commonErrors,
          "403": problem("Asked with a session token rather than a user name and password."),
          "404": problem("The service runs without authentication."),
        },
      },
    },
    "/tokens": {
      get: {
        operationId: "listServiceTokens",
        summary: "The service tokens, oldest first, expired ones included; never a secret. Admins only.",
        responses: {
          "200": {
            description: "Every token.",
            content: {
              "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/ServiceToken" } } },
            },
          },
          ...commonErrors,
          "403": problem("Only admins may manage service tokens."),
        },
      },
      post: {
        operationId: "createServiceToken",
        summary:
          "Creates a service token for automation, sent as `Authorization: Bearer sdw_…`; its principal `token:NAME` is the audit actor. The secret is in this answer only; the store keeps its SHA-256. Admins only.",
        requestBody: jsonBody("#/components/schemas/CreateServiceTokenRequest"),
        responses: {
          "201": {
            description: "The token, with its secret (never cached).",
            content: { "application/json": { schema: { $ref: "#/components/schemas/IssuedServiceToken" } } },
          },
          ...commonErrors,
          "403": problem("Only admins may manage service tokens."),
          "409": problem("A token of this name exists."),
          "413": writeErrors["413"],
          "415": writeErrors["415"],
        },
      },
    },
    "/tokens/{id}": {
      parameters: [
        { name: "id", in: "path", required: true, description: "The token's id.", schema: { type: "string" } },
      ],
      delete: {
        operationId: "revokeServiceToken",
        summary: "Revokes a token and both its secrets: every instance refuses it within a second. Admins only.",
        responses: {
          "204": { description: "Revoked." },
          ...commonErrors,
          "403": problem("Only admins may manage service tokens."),
          "404": problem("There is no such token."),
        },
      },
    },
    "/tokens/{id}/renew": {
      parameters: [
        { name: "id", in: "path", required: true, description: "The token's id.", schema: { type: "string" } },
      ],
      post: {
        operationId: "renewServiceToken",
        summary:
          "Gives a token a new secret, valid for the token's lifetime from now; the secret before it keeps working for overlapHours (default 24, never past its own expiry), then stops on every instance. The body may be left out. Admins only.",
        requestBody: {
          required: false,
          content: { "application/json": { schema: { $ref: "#/components/schemas/RenewServiceTokenRequest" } } },
        },
        responses: {
          "200": {
            description: "The token, with its new secret (never cached).",
            content: { "application/json": { schema: { $ref: "#/components/schemas/IssuedServiceToken" } } },
          },
          ...commonErrors,
          "403": problem("Only admins may manage service tokens."),
          "404": problem("There is no such token."),
          "413": writeErrors["413"],
          "415": writeErrors["415"],
        },
      },
    },
    "/grants": {
      get: {
        operationId: "listGrants",
        summary: "Every grant, oldest first (SPEC §11). Admins only.",
        responses: {
          "200": {
            description: "Every grant.",
            content: {
              "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Grant" } } },
            },
          },
          ...commonErrors,
          "403": problem("Only admins may manage grants."),
        },
      },
      post: {
        operationId: "addGrant",
        summary:
          "Grants a subject a verb (and the verbs before it) on every alias a pattern matches; allow only. Audited as a change; every instance applies it within a second. Admins only.",
        requestBody: jsonBody("#/components/schemas/GrantRequest"),
        responses: {
          "201": {
            description: "The grant.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Grant" } } },
          },
          ...commonErrors,
          "403": problem("Only admins may manage grants."),
          "409": problem("A grant saying the same (subject, verb, pattern in any case) exists."),
          "413": writeErrors["413"],
          "415": writeErrors["415"],
        },
      },
    },
    "/grants/{id}": {
      parameters: [
        { name: "id", in: "path", required: true, description: "The grant's id.", schema: { type: "string" } },
      ],
      delete: {
        operationId: "removeGrant",
        summary: "Removes a grant: audited as a change; every instance applies it within a second. Admins only.",
        responses: {
          "204": { description: "Removed." },
          ...commonErrors,
          "403": problem("Only admins may manage grants."),
          "404": problem("There is no such grant."),
        },
      },
    },
    "/connections/{alias}/access": {
      parameters: [aliasParameter],
      get: {
        operationId: "connectionAccess",
        summary:
          "Who may do what on a connection through grants: each subject with its verbs, and the grants covering it (admins may do everything, viewers read and use). Admins only.",
        responses: {
          "200": {
            description: "The connection's access list.",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["alias", "subjects", "grants"],
                  additionalProperties: false,
                  properties: {
                    alias: { $ref: "#/components/schemas/Alias" },
                    subjects: {
                      type: "array",
                      items: {
                        type: "object",
                        required: ["subject", "verbs"],
                        additionalProperties: false,
                        properties: {
                          subject: { $ref: "#/components/schemas/Subject" },
                          verbs: { $ref: "#/components/schemas/Verbs" },
                        },
                      },
                    },
                    grants: { type: "array", items: { $ref: "#/components/schemas/Grant" } },
                  },
                },
              },
            },
          },
          ...commonErrors,
          "403": problem("Only admins may read access lists."),
          "404": problem("No connection has this alias."),
        },
      },
    },
    "/access/check": {
      get: {
        operationId: "checkAccess",
        summary:
          "The verbs a subject's grants give on an alias (a principal's with its groups of SDWAN_GROUPS_FILE; a role and a provider's groups are known only at sign-in). Admins only.",
        parameters: [
          { name: "subject", in: "query", required: true, schema: { $ref: "#/components/schemas/Subject" } },
          { name: "alias", in: "query", required: true, schema: { $ref: "#/components/schemas/Alias" } },
        ],
        responses: {
          "200": {
            description: "The verbs.",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["subject", "alias", "verbs"],
                  additionalProperties: false,
                  properties: {
                    subject: { $ref: "#/components/schemas/Subject" },
                    alias: { $ref: "#/components/schemas/Alias" },
                    verbs: { $ref: "#/components/schemas/Verbs" },
                  },
                },
              },
            },
          },
          ...commonErrors,
          "403": problem("Only admins may check access."),
        },
      },
    },
    "/webhooks": {
      get: {
        operationId: "listWebhooks",
        summary: "The webhooks, oldest first; never a secret. Admins only.",
        responses: {
          "200": {
            description: "Every webhook.",
            content: {
              "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Webhook" } } },
            },
          },
          ...commonErrors,
          "403": problem("Only admins may manage webhooks."),
        },
      },
      post: {
        operationId: "createWebhook",
        summary:
          "Creates a webhook: every event of its types is POSTed to the URL at least once, in order, signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). The secret is in this answer only; the store keeps it sealed. Admins only.",
        requestBody: jsonBody("#/components/schemas/CreateWebhookRequest"),
        responses: {
          "201": {
            description: "The webhook, with its signing secret (never cached).",
            content: { "application/json": { schema: { $ref: "#/components/schemas/CreatedWebhook" } } },
          },
          ...commonErrors,
          "403": problem("Only admins may manage webhooks."),
          "413": writeErrors["413"],
          "415": writeErrors["415"],
        },
      },
    },
    "/webhooks/{id}": {
      parameters: [webhookIdParameter],
      get: {
        operationId: "getWebhook",
        summary: "One webhook; never its secret. Admins only.",
        responses: {
          "200": {
            description: "The webhook.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/Webhook" } } },
          },
          ...commonErrors,
          "403": problem("Only admins may manage webhooks."),
          "404": problem("There is no such webhook."),
        },
      },
      delete: {
        operationId: "deleteWebhook",
        summary: "Deletes a webhook and its pending deliveries. Admins only.",
        responses: {
          "204": { description: "Deleted." },
          ...commonErrors,
          "403": problem("Only admins may manage webhooks."),
          "404": problem("There is no such webhook."),
        },
      },
    },
    "/webhooks/{id}/ping": {
      parameters: [webhookIdParameter],
      post: {
        operationId: "pingWebhook",
        summary:
          "Sends a signed ping (type org.sdwan-connections.webhook.ping; never in the event log nor the deliveries) now, and answers what the receiver said. Admins only.",
        responses: {
          "200": {
            description: "The attempt.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/PingAnswer" } } },
          },
          ...commonErrors,
          "403": problem("Only admins may manage webhooks."),
          "404": problem("There is no such webhook."),
        },
      },
    },
    "/webhooks/{id}/deliveries": {
      parameters: [webhookIdParameter],
      get: {
        operationId: "listWebhookDeliveries",
        summary:
          "A webhook's newest deliveries, newest first: status and each attempt's answer and latency, never a body. Admins only.",
        parameters: [
          {
            name: "limit",
            in: "query",
            required: false,
            schema: { type: "integer", minimum: 1, maximum: 100, default: 20 },
          },
          {
            name: "status",
            in: "query",
            required: false,
            description: "Only the deliveries in this state (e.g. `dead`, to send them again).",
            schema: { type: "string", enum: [...DELIVERY_STATUSES] },
          },
        ],
        responses: {
          "200": {
            description: "The deliveries.",
            content: {
              "application/json": {
                schema: { type: "array", items: { $ref: "#/components/schemas/WebhookDelivery" } },
              },
            },
          },
          ...commonErrors,
          "403": problem("Only admins may manage webhooks."),
          "404": problem("There is no such webhook."),
        },
      },
    },
    "/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
      parameters: [
        webhookIdParameter,
        {
          name: "deliveryId",
          in: "path",
          required: true,
          description: "The delivery's id.",
          schema: { type: "string" },
        },
      ],
      post: {
        operationId: "redeliverWebhookDelivery",
        summary:
          "Sends a delivered or dead delivery's event again: a new pending delivery of it (the same webhook-id, so receivers dedupe), after the webhook's other deliveries. Audited (webhook-redeliver). Admins only.",
        responses: {
          "202": {
            description: "The new delivery, pending.",
            content: { "application/json": { schema: { $ref: "#/components/schemas/WebhookDelivery" } } },
          },
          ...commonErrors,
          "403": problem("Only admins may manage webhooks."),
          "404": problem("There is no such webhook, or it has no delivery with this id (delivery-not-found)."),
          "409": problem("The delivery, or a redelivery of its event, is still pending (delivery-pending)."),
          "410": problem("The delivery's event is no longer kept by the audit trail (delivery-event-expired)."),
        },
      },
    },
    "/partner/{alias}/customers": {
      parameters: [aliasParameter],
      get: {
        operationId: "listPartnerCustomers",
        summary: "List the customers behind a partner connection (cached per connection, 60 s by default).",
        parameters: conditional.parameters,
        responses: {
          "200": {
            description: "One element per customer.",
            headers: conditional.headers,
            content: {
              "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Customer" } } },
            },
          },
          "304": conditional.notModified,
          ...commonErrors,
          "403": verbMissing,
          "404": problem("No connection with this alias."),
          "409": problem("The connection is not a partner connection."),
          "502": problem(
            "The orchestrator refused the key (orchestrator-rejected), failed (orchestrator-failed: a 5xx with its error body that persisted through the retries), answered garbage (a list over SDWAN_CUSTOMERS_MAX_ENTERPRISES or SDWAN_CUSTOMERS_MAX_REPLY_BYTES included), rate-limited us or cannot be reached.",
          ),
          "504": problem("The orchestrator did not answer in time."),
        },
      },
    },
  },
  components: {
    securitySchemes: {
      basic: { type: "http", scheme: "basic" },
      bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      consoleSession: { type: "http", scheme: "bearer", description: "A token from GET /session." },
      serviceToken: { type: "http", scheme: "bearer", description: "A service token from POST /tokens (`sdw_…`)." },
    },
    schemas: {
      ServiceToken: {
        type: "object",
        required: ["id", "name", "role", "expiresAt", "lastUsedAt", "createdBy", "createdAt"],
        additionalProperties: false,
        properties: serviceTokenProperties,
      },
      IssuedServiceToken: {
        type: "object",
        required: ["id", "name", "role", "expiresAt", "lastUsedAt", "createdBy", "createdAt", "token"],
        additionalProperties: false,
        properties: {
          ...serviceTokenProperties,
          token: {
            type: "string",
            pattern: "^sdw_[A-Za-z0-9_-]{43}$",
            description: "The secret: shown in this answer only.",
          },
        },
      },
      CreateWebhookRequest: {
        type: "object",
        required: ["url"],
        additionalProperties: false,
        properties: {
          url: {
            type: "string",
            maxLength: 2048,
            description:
              "The receiver: https (http only to the hosts SDWAN_WEBHOOK_ALLOW_HTTP names, or any when it is true); the destination fence applies.",
          },
          types: {
            type: "array",
            items: { type: "string" },
            description: "Event types, `*` a wildcard (e.g. connection.health.*); every event when left out.",
          },
          kind: { type: "string", enum: ["cloudevents", "opennms"], default: "cloudevents" },
          username: { type: "string", description: "kind opennms only: Basic credentials for OpenNMS's REST API." },
          password: { type: "string", writeOnly: true, description: "kind opennms only; sealed at rest." },
        },
      },
      Webhook: {
        type: "object",
        required: ["id", "url", "types", "kind", "createdAt", "disabledAt"],
        additionalProperties: false,
        properties: webhookProperties,
      },
      CreatedWebhook: {
        type: "object",
        required: ["id", "url", "types", "kind", "createdAt", "disabledAt", "secret"],
        additionalProperties: false,
        properties: {
          ...webhookProperties,
          secret: {
            type: "string",
            pattern: "^whsec_",
            description: "The signing secret (whsec_ + base64 of its bytes): shown in this answer only.",
          },
        },
      },
      WebhookAttempt: {
        type: "object",
        required: ["at", "status", "error", "latencyMs"],
        additionalProperties: false,
        properties: attemptProperties,
      },
      PingAnswer: {
        type: "object",
        required: ["at", "status", "error", "latencyMs", "kind"],
        additionalProperties: false,
        properties: { ...attemptProperties, kind: { type: "string", enum: ["cloudevents", "opennms"] } },
      },
      WebhookDelivery: {
        type: "object",
        required: ["id", "webhookId", "eventId", "status", "nextAttemptAt", "attempts"],
        additionalProperties: false,
        properties: {
          id: { type: "string", format: "uuid" },
          webhookId: { type: "string", format: "uuid" },
          eventId: { type: "string", description: "The event's id (the audit entry's): the webhook-id header." },
          status: { type: "string", enum: ["pending", "delivered", "dead"] },
          nextAttemptAt: {
            type: "string",
            format: "date-time",
            description: "When it is tried next (pending), or was settled.",
          },
          attempts: { type: "array", items: { $ref: "#/components/schemas/WebhookAttempt" } },
        },
      },
      CreateServiceTokenRequest: {
        type: "object",
        required: ["name", "expiresInDays"],
        additionalProperties: false,
        properties: {
          name: {
            type: "string",
            pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$",
            description: "Unique among the tokens; the principal is token:NAME.",
          },
          expiresInDays: { type: "integer", minimum: 1, maximum: 365 },
          role: {
            type: "string",
            enum: ["admin", "viewer"],
            description: "viewer when left out, unless grants are given: then none.",
          },
          grants: {
            type: "array",
            description: "Grants to the token's principal token:NAME, each audited as a change by the creator.",
            items: { $ref: "#/components/schemas/PatternGrant" },
          },
        },
      },
      Subject: {
        type: "string",
        pattern: SUBJECT_PATTERN.source,
        description: "A principal (user:NAME, oidc:NAME, token:NAME) or a group (group:NAME).",
      },
      AliasPattern: {
        type: "string",
        minLength: 1,
        maxLength: ALIAS_MAX_LENGTH,
        pattern: "^[A-Za-z0-9._*-]+$",
        description: "An alias glob: `*` any run of characters; matched ignoring case, as aliases are.",
      },
      GrantVerb: {
        type: "string",
        enum: [...GRANT_VERBS],
        description:
          "read (listed, stored read, health, events) ⊂ use (validate, customers) ⊂ manage (add within the pattern, update, delete, key check).",
      },
      GrantRequest: {
        type: "object",
        required: ["subject", "pattern", "verb"],
        additionalProperties: false,
        properties: {
          subject: { $ref: "#/components/schemas/Subject" },
          pattern: { $ref: "#/components/schemas/AliasPattern" },
          verb: { $ref: "#/components/schemas/GrantVerb" },
        },
      },
      Grant: {
        type: "object",
        required: ["id", "subject", "pattern", "verb"],
        additionalProperties: false,
        properties: {
          id: { type: "string", format: "uuid" },
          subject: { $ref: "#/components/schemas/Subject" },
          pattern: { $ref: "#/components/schemas/AliasPattern" },
          verb: { $ref: "#/components/schemas/GrantVerb" },
        },
      },
      PatternGrant: {
        type: "object",
        required: ["pattern", "verb"],
        additionalProperties: false,
        properties: {
          pattern: { $ref: "#/components/schemas/AliasPattern" },
          verb: { $ref: "#/components/schemas/GrantVerb" },
        },
      },
      Verbs: { type: "array", items: { $ref: "#/components/schemas/GrantVerb" } },
      RenewServiceTokenRequest: {
        type: "object",
        additionalProperties: false,
        properties: {
          overlapHours: {
            type: "integer",
            minimum: 0,
            maximum: 720,
            default: 24,
            description: "How long the secret before keeps working.",
          },
        },
      },
      Alias: {
        type: "string",
        minLength: 1,
        maxLength: ALIAS_MAX_LENGTH,
        pattern: ALIAS_PATTERN.source,
        description: "Unique ignoring case; returned as first given.",
      },
      OrchestratorUrl: {
        type: "string",
        minLength: 1,
        maxLength: ORCHESTRATOR_URL_MAX_LENGTH,
        pattern: ORCHESTRATOR_URL_PATTERN.source,
        description: "Absolute http(s) URL without user-info or fragment, returned exactly as given.",
      },
      ApiKey: {
        type: "string",
        minLength: 1,
        maxLength: API_KEY_MAX_LENGTH,
        pattern: API_KEY_PATTERN.source,
        writeOnly: true,
        description: "The orchestrator credential: accepted on add and update, never returned. No control characters.",
      },
      ConnectionSummary: {
        type: "object",
        required: ["alias", "orchestratorUrl"],
        additionalProperties: false,
        properties: {
          alias: { $ref: "#/components/schemas/Alias" },
          orchestratorUrl: { $ref: "#/components/schemas/OrchestratorUrl" },
        },
      },
      AddConnection: {
        type: "object",
        required: ["alias", "orchestratorUrl"],
        oneOf: [{ required: ["apiKey"] }, { required: ["apiKeyRef"] }],
        additionalProperties: false,
        properties: {
          alias: { $ref: "#/components/schemas/Alias" },
          orchestratorUrl: { $ref: "#/components/schemas/OrchestratorUrl" },
          apiKey: { $ref: "#/components/schemas/ApiKey" },
          apiKeyExpiresAt: apiKeyExpiresAtProperty,
          keyRenewal: keyRenewalProperty,
          apiKeyRef: apiKeyRefProperty,
        },
      },
      ConnectionHealth: {
        type: "object",
        additionalProperties: false,
        required: ["alias", "state", "since", "checks"],
        properties: {
          alias: { $ref: "#/components/schemas/Alias" },
          state: { type: "string", enum: HEALTH_STATES },
          since: {
            type: ["string", "null"],
            format: "date-time",
            description: "When the state began (null: unknown).",
          },
          checks: {
            type: "array",
            maxItems: HEALTH_HISTORY,
            items: {
              type: "object",
              additionalProperties: false,
              required: ["at", "outcome", "latencyMs", "reason"],
              properties: {
                at: { type: "string", format: "date-time" },
                outcome: { type: "string", enum: HEALTH_CHECK_OUTCOMES },
                latencyMs: { type: "integer", minimum: 0 },
                reason: { type: ["string", "null"] },
              },
            },
          },
        },
      },
      AuditEntry: {
        type: "object",
        additionalProperties: false,
        required: [
          "id",
          "at",
          "actor",
          "requestId",
          "action",
          "alias",
          "fields",
          "forced",
          "validation",
          "outcome",
          "failure",
          "detail",
        ],
        properties: {
          id: { type: "string", description: "Unique; sorts by time." },
          at: { type: "string", format: "date-time" },
          actor: { type: "string", description: "The user (`cli:<os user>` from the CLI)." },
          requestId: { type: ["string", "null"], description: "The request's X-Request-Id." },
          action: {
            type: "string",
            enum: AUDIT_ACTIONS,
            description:
              "key-check: a key check that did not match; forbidden: a write refused to a viewer (its method in detail).",
          },
          alias: {
            oneOf: [{ $ref: "#/components/schemas/Alias" }, { type: "null" }],
            description: "null for a rotation, or when the alias given was not valid.",
          },
          fields: {
            type: "array",
            items: { type: "string", enum: AUDITED_FIELDS },
            description: "The names of the fields the request set; never a value.",
          },
          forced: { type: "boolean" },
          validation: {
            type: "string",
            enum: VALIDATION_OUTCOMES,
            description:
              "What the orchestrator said of the key; not-asked when forced, for deletes and rotations, or when the request failed before.",
          },
          outcome: {
            type: "string",
            enum: AUDIT_OUTCOMES,
            description:
              "unchanged: an update to the URL and key already stored (kept with the attempts, not the changes).",
          },
          failure: {
            type: ["string", "null"],
            description:
              "Why it failed (the error's kind, e.g. ValidationRefused, VersionMismatch; KeyMismatch, Forbidden).",
          },
          detail: {
            type: ["string", "null"],
            description: "For a health change: `valid → unreachable` and the check's reason.",
          },
          orchestratorUrl: {
            type: "string",
            description:
              "The orchestrator URL of the connection the entry is about, as it was then (a change's, a health change's, a key warning's): what its event tells. Absent when not known.",
          },
          version: {
            type: "integer",
            minimum: 1,
            description:
              "For an add or update, the connection's version it left; for a delete, the version removed. Absent otherwise.",
          },
        },
      },
      KeyCheck: {
        type: "object",
        required: ["apiKey"],
        additionalProperties: false,
        properties: { apiKey: { $ref: "#/components/schemas/ApiKey" } },
      },
      UpdateConnection: {
        type: "object",
        additionalProperties: false,
        minProperties: 1,
        anyOf: [
          { required: ["orchestratorUrl"] },
          { required: ["apiKey"] },
          { required: ["apiKeyExpiresAt"] },
          { required: ["keyRenewal"] },
          { required: ["apiKeyRef"] },
        ],
        not: { required: ["apiKey", "apiKeyRef"] },
        properties: {
          alias: {
            $ref: "#/components/schemas/Alias",
            description: "Tolerated only if it equals the path alias ignoring case.",
          },
          orchestratorUrl: { $ref: "#/components/schemas/OrchestratorUrl" },
          apiKey: { $ref: "#/components/schemas/ApiKey" },
          apiKeyExpiresAt: apiKeyExpiresAtProperty,
          keyRenewal: keyRenewalProperty,
          apiKeyRef: apiKeyRefProperty,
        },
      },
      Validation: {
        type: "object",
        description:
          "`type` or `reason`, `version`, `apiKeySetAt`, `apiKeyFingerprint`, `apiKeyExpiresAt`, `apiKeyExpirySource` and `keyRenewal` only with verbose=true.",
        required: ["alias", "orchestratorUrl", "valid"],
        additionalProperties: false,
        properties: {
          alias: { $ref: "#/components/schemas/Alias" },
          orchestratorUrl: { $ref: "#/components/schemas/OrchestratorUrl" },
          valid: { type: "boolean" },
          type: { type: "string", enum: CONNECTION_KINDS, description: "When valid." },
          reason: { type: "string", description: "When not valid." },
          ...storedProperties,
        },
      },
      StoredConnection: {
        type: "object",
        description: "A connection as stored (GET with stored=true): no verdict on its key.",
        required: [
          "alias",
          "orchestratorUrl",
          "version",
          "apiKeySetAt",
          "apiKeyFingerprint",
          "apiKeyExpiresAt",
          "apiKeyExpirySource",
          "keyRenewal",
        ],
        additionalProperties: false,
        properties: {
          alias: { $ref: "#/components/schemas/Alias" },
          orchestratorUrl: { $ref: "#/components/schemas/OrchestratorUrl" },
          ...storedProperties,
        },
      },
      Customer: {
        type: "object",
        additionalProperties: false,
        required: [...CUSTOMER_FIELDS],
        properties: customerProperties,
      },
      Problem: {
        type: "object",
        description: "RFC 9457 problem details. Never contains an apiKey or credentials.",
        required: ["type", "title", "status", "detail"],
        additionalProperties: false,
        properties: {
          type: { type: "string", enum: PROBLEM_TYPES },
          title: { type: "string", enum: PROBLEM_TITLES },
          status: { type: "integer", enum: PROBLEM_STATUSES },
          detail: { type: "string" },
          errors: {
            type: "array",
            minItems: 1,
            items: {
              type: "object",
              required: ["field", "message"],
              additionalProperties: false,
              properties: { field: { type: "string" }, message: { type: "string" } },
            },
          },
          cause: {
            type: "string",
            enum: Object.values(ORCHESTRATOR_PROBLEMS),
            description:
              "Of a refused validation (422): the orchestrator problem that refused it (the slug of its problem type). Clients branch on it, never on the detail's text.",
          },
          reason: {
            type: "string",
            description: "Of a refused validation (422): the orchestrator's reason, as the detail ends with it.",
          },
        },
      },
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
