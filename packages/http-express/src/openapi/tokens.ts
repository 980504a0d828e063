import { CreateTokenRequest, RenewTokenRequest, TOKEN_NAME_PATTERN } from "@sdwan-connections/core";
import { IssuedToken, ServiceToken } from "@sdwan-connections/core/wire";
import * as t from "io-ts";
import type { Notes } from "./schema-of.js";
import { commonErrors, created, json, jsonBody, problem, writeErrors } from "./shared.js";

/** Part of openApiDocument (../openapi.ts): Service tokens' paths and schemas (routes/tokens.ts). */

const adminsOnly = problem("Only admins may manage service tokens.");
const noSuchToken = problem("There is no such token.");
const tokenIdParameter = {
  name: "id",
  in: "path",
  required: true,
  description: "The token's id.",
  schema: { type: "string" },
} as const;

export const tokensPaths = {
  "/tokens": {
    get: {
      operationId: "listServiceTokens",
      summary: "The service tokens, oldest first, expired ones included; never a secret. Admins only.",
      responses: {
        "200": json("Every token.", t.array(ServiceToken)),
        ...commonErrors,
        "403": adminsOnly,
      },
    },
    post: {
      operationId: "createServiceToken",
      summary:
        "Creates a service token for automation, sent as `Authorization: Bearer sdw_…`; its principal `token:NAME` is the audit actor. The secret is in this answer only; the store keeps its SHA-256. Admins only.",
      requestBody: jsonBody(CreateTokenRequest),
      responses: {
        "201": created("The token, with its secret (never cached).", IssuedToken),
        ...commonErrors,
        "403": adminsOnly,
        "409": problem("A token of this name exists."),
        "413": writeErrors["413"],
        "415": writeErrors["415"],
      },
    },
  },
  "/tokens/{id}": {
    parameters: [tokenIdParameter],
    delete: {
      operationId: "revokeServiceToken",
      summary: "Revokes a token and both its secrets: every instance refuses it within a second. Admins only.",
      responses: {
        "204": { description: "Revoked." },
        ...commonErrors,
        "403": adminsOnly,
        "404": noSuchToken,
      },
    },
  },
  "/tokens/{id}/renew": {
    parameters: [tokenIdParameter],
    post: {
      operationId: "renewServiceToken",
      summary:
        "Gives a token a new secret, valid for the token's lifetime from now; the secret before it keeps working for overlapHours (default 24, never past its own expiry), then stops on every instance. The body may be left out. Admins only.",
      requestBody: jsonBody(RenewTokenRequest, false),
      responses: {
        "200": json("The token, with its new secret (never cached).", IssuedToken),
        ...commonErrors,
        "403": adminsOnly,
        "404": noSuchToken,
        "413": writeErrors["413"],
        "415": writeErrors["415"],
      },
    },
  },
} as const;

export const tokensNotes: Notes = {
  "ServiceToken.id": { format: "uuid" },
  "ServiceToken.role": "null for a token created with grants and no role: it may do only what its grants give.",
  "ServiceToken.lastUsedAt": "Within a minute of the last use; null when never used.",
  "ServiceToken.createdBy": "The audit actor that created it.",
  "IssuedToken.token": { pattern: "^sdw_[A-Za-z0-9_-]{43}$", description: "The secret: shown in this answer only." },
  "CreateServiceTokenRequest.name": {
    pattern: TOKEN_NAME_PATTERN.source,
    description: "Unique among the tokens; the principal is token:NAME.",
  },
  "CreateServiceTokenRequest.expiresInDays": { minimum: 1, maximum: 365 },
  "CreateServiceTokenRequest.role": "viewer when left out, unless grants are given: then none.",
  "CreateServiceTokenRequest.grants":
    "Grants to the token's principal token:NAME, each audited as a change by the creator.",
  "RenewServiceTokenRequest.overlapHours": {
    minimum: 0,
    maximum: 720,
    default: 24,
    description: "How long the secret before keeps working.",
  },
};
