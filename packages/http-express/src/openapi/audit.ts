import { AliasCodec, AUDIT_PAGE_MAX } from "@sdwan-connections/core";
import { AuditPage } from "@sdwan-connections/core/wire";
import type { Notes } from "./schema-of.js";
import { commonErrors, json, problem } from "./shared.js";

/** Part of openApiDocument (../openapi.ts): GET /audit and the AuditEntry schema (routes/audit.ts). */

export const auditPaths = {
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
          schema: AliasCodec,
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
        "200": json("A page of entries and the `before` of the next page (null on the last).", AuditPage),
        ...commonErrors,
        "403": problem("Only admins may read the audit trail."),
      },
    },
  },
} as const;

export const auditNotes: Notes = {
  "AuditEntry.id": "Unique; sorts by time.",
  "AuditEntry.actor": "The user (`cli:<os user>` from the CLI).",
  "AuditEntry.requestId": "The request's X-Request-Id.",
  "AuditEntry.action":
    "key-check: a key check that did not match; forbidden: a write refused to a viewer (its method in detail).",
  "AuditEntry.alias": "null for a rotation, or when the alias given was not valid.",
  "AuditEntry.fields": "The names of the fields the request set; never a value.",
  "AuditEntry.validation":
    "What the orchestrator said of the key; not-asked when forced, for deletes and rotations, when the request failed before, or when the orchestrator could not be asked (unreachable, timed out, rate-limited, no usable answer).",
  "AuditEntry.outcome":
    "unchanged: an update to the URL and key already stored (kept with the attempts, not the changes).",
  "AuditEntry.failure":
    "Why it failed (the error's kind, e.g. ValidationRefused, VersionMismatch; KeyMismatch, Forbidden).",
  "AuditEntry.detail": "For a health change: `valid → unreachable` and the check's reason.",
  "AuditEntry.orchestratorUrl":
    "The orchestrator URL of the connection the entry is about, as it was then (a change's, a health change's, a key warning's): what its event tells. Absent when not known.",
  "AuditEntry.version": {
    minimum: 1,
    description:
      "For an add or update, the connection's version it left; for a delete, the version removed. Absent otherwise.",
  },
};
