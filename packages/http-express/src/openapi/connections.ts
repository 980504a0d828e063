import { API_KEY_MAX_LENGTH, apiKeyPattern } from "@sdwan-connections/core";
import {
  ANSWER_TEXT,
  ConnectionDetails,
  ConnectionSummary,
  KeyCheck,
  Validation,
  VerboseValidation,
} from "@sdwan-connections/core/wire";
import * as t from "io-ts";
import type { Notes } from "./schema-of.js";
import {
  aliasParameter,
  commonErrors,
  noSuchConnection,
  conditional,
  flag,
  json,
  jsonBody,
  problem,
  text,
  verbMissing,
  writeErrors,
} from "./shared.js";

/** Part of openApiDocument (../openapi.ts): The connections' paths (list, add, validate, update, delete, key check) and their schemas (routes/connections.ts). */

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

/** What a store holds of a connection beside its alias and URL (never the key): in the stored and the verbose answer. */
const storedNotes: Notes = {
  version: {
    type: "integer",
    minimum: 1,
    description:
      "The ETag's value. Every change (adding included) gives a new version, greater than any the store gave before, so a version of a deleted connection never matches the alias added again; an update that changes nothing keeps it.",
  },
  apiKeySetAt: "When the stored key was set (UTC); null for a key stored before keys were dated.",
  apiKeyFingerprint: {
    pattern: "^[A-Za-z0-9_-]{43}$",
    description:
      "HMAC-SHA-256 of the stored key under a key of the connection (derived from its lower-cased alias and the master key), base64url. The connection's key gives the same fingerprint in every instance of a deployment; the same key on another connection gives another; it cannot be reversed or computed without the master key. It changes when the master key does.",
  },
  apiKeyExpiresAt:
    "When the key expires (UTC), as far as it is known: declared (apiKeyExpiresAt on add or update), the key's own JWT `exp`, or the orchestrator's token list (asked by the background checks); null when unknown.",
  apiKeyExpirySource:
    "Where apiKeyExpiresAt comes from: `declared`, `token` (the key's JWT exp, read, never verified) or `orchestrator`; null when unknown.",
  keyRenewal:
    "Whether the service renews the key through the orchestrator before it expires (SPEC §12): `auto`, or `off` (the default).",
  apiKeyRef:
    "Where the key is kept when it is not in the store (`file:NAME`, `env:NAME`); absent for a stored key. The fingerprint and expiry are of the key read from it now.",
};

export const connectionsNotes: Notes = {
  ...Object.fromEntries(
    ["ConnectionDetails", "VerboseValidation"].flatMap((name) =>
      Object.entries(storedNotes).map(([field, text]) => [`${name}.${field}`, text]),
    ),
  ),
  ConnectionDetails: "A connection as stored (GET with stored=true): no verdict on its key.",
  VerboseValidation: "A validation with verbose=true: `type` when valid, `reason` when not, and what is stored.",
  "VerboseValidation.type": "When valid.",
  "VerboseValidation.reason": "When not valid.",
};
const keyRenewalProperty = {
  $ref: "#/components/schemas/KeyRenewal",
  description:
    "Optional: `auto` renews the key through the orchestrator SDWAN_KEY_RENEW_DAYS before it expires (customer keys by refresh, partner keys by create, download and revoke after SDWAN_KEY_RENEW_OVERLAP_H); `off` (a new connection's default) does not. Any `manage` right may set it; the original's clients never send it.",
};
const apiKeyRefProperty = {
  $ref: "#/components/schemas/ApiKeyRef",
  description:
    "Where the key is kept instead of the store (SPEC §12), admin only: `file:NAME` (a file in SDWAN_APIKEY_DIR, such as a mounted Kubernetes Secret; its real path must stay inside that directory and outside the data directory, and it may not be or decode to a master key) or `env:NAME` (a variable SDWAN_APIKEY_…). Read whenever the key is used, never stored, re-read within 60 s; excludes apiKey.",
};
const apiKeyExpiresAtProperty = {
  type: "string",
  format: "date-time",
  description:
    "Optional: when the key expires, RFC 3339 with an offset (e.g. 2027-01-31T00:00:00Z). A time already past is accepted (the key-expired warning follows). A new key without it clears the one stored; the original's clients never send it.",
};

export const connectionsPaths = {
  "/connections": {
    get: {
      operationId: "listConnections",
      summary: "List the connections, sorted by alias ignoring case.",
      parameters: conditional.parameters,
      responses: {
        "200": {
          ...json("Every connection's alias and orchestrator URL.", t.array(ConnectionSummary)),
          headers: conditional.headers,
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
          ...json(
            "The validation's result; an orchestrator that refuses or cannot be reached gives valid=false. With stored=true, the stored connection.",
            t.union([Validation, VerboseValidation, ConnectionDetails]),
          ),
          headers: versioned.etag,
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
        "200": text("Updated (or, with dryrun=true, would be updated).", [ANSWER_TEXT.updated, ANSWER_TEXT["dry-run"]]),
        ...commonErrors,
        ...writeErrors,
        "404": noSuchConnection,
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
        "404": noSuchConnection,
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
      requestBody: jsonBody("#/components/schemas/KeyCheckRequest"),
      responses: {
        "200": json("Whether the given key is the stored one.", KeyCheck),
        ...commonErrors,
        "403": writeErrors["403"],
        "404": noSuchConnection,
        "413": writeErrors["413"],
        "415": writeErrors["415"],
        "429": {
          ...problem("Too many failed logins, or too many key checks that did not match, from this client."),
          headers: commonErrors["429"].headers,
        },
      },
    },
  },
} as const;

export const connectionsSchemas = {
  ApiKey: {
    type: "string",
    minLength: 1,
    maxLength: API_KEY_MAX_LENGTH,
    pattern: apiKeyPattern().source,
    writeOnly: true,
    description: "The orchestrator credential: accepted on add and update, never returned. No control characters.",
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
  KeyCheckRequest: {
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
} as const;
