import { ORCHESTRATOR_PROBLEMS, PROBLEMS, problemType, type ProblemSlug } from "@sdwan-connections/core/wire";

/** Part of openApiDocument (../openapi.ts): The Problem schema: its types, titles and statuses come from errors.ts's table. */

const PROBLEM_SLUGS = Object.keys(PROBLEMS) as ProblemSlug[];
const PROBLEM_TYPES = PROBLEM_SLUGS.map(problemType);
const PROBLEM_TITLES = [...new Set(Object.values(PROBLEMS).map(({ title }) => title))];
const PROBLEM_STATUSES = [...new Set(Object.values(PROBLEMS).map(({ status }) => status))];

export const problemsSchemas = {
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
} as const;
