import { AliasCodec, GrantRequestCodec, SubjectCodec } from "@sdwan-connections/core";
import { AccessCheck, ConnectionAccess, Grant } from "@sdwan-connections/core/wire";
import * as t from "io-ts";
import type { Notes } from "./schema-of.js";
import { aliasParameter, commonErrors, created, json, jsonBody, problem, writeErrors } from "./shared.js";

/** Part of openApiDocument (../openapi.ts): Grants, a connection's access list and the access check, with their schemas (routes/grants.ts). */

const adminsOnly = problem("Only admins may manage grants.");

export const grantsPaths = {
  "/grants": {
    get: {
      operationId: "listGrants",
      summary: "Every grant, oldest first (SPEC §11). Admins only.",
      responses: {
        "200": json("Every grant.", t.array(Grant)),
        ...commonErrors,
        "403": adminsOnly,
      },
    },
    post: {
      operationId: "addGrant",
      summary:
        "Grants a subject a verb (and the verbs before it) on every alias a pattern matches; allow only. Audited as a change; every instance applies it within a second. Admins only.",
      requestBody: jsonBody(GrantRequestCodec),
      responses: {
        "201": created("The grant.", Grant),
        ...commonErrors,
        "403": adminsOnly,
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
        "403": adminsOnly,
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
        "200": json("The connection's access list.", ConnectionAccess),
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
        { name: "subject", in: "query", required: true, schema: SubjectCodec },
        { name: "alias", in: "query", required: true, schema: AliasCodec },
      ],
      responses: {
        "200": json("The verbs.", AccessCheck),
        ...commonErrors,
        "403": problem("Only admins may check access."),
      },
    },
  },
} as const;

export const grantsNotes: Notes = {
  GrantVerb:
    "read (listed, stored read, health, events) ⊂ use (validate, customers) ⊂ manage (add within the pattern, update, delete, key check).",
  "Grant.id": { format: "uuid" },
};
