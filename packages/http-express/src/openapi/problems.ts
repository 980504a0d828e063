import { PROBLEMS, PROBLEM_SLUGS, problemType } from "@sdwan-connections/core/wire";
import type { Notes } from "./schema-of.js";

/** Part of openApiDocument (../openapi.ts): what the Problem codec cannot say: its types, titles and statuses, from the wire's table. */
export const problemNotes: Notes = {
  Problem: "RFC 9457 problem details. Never contains an apiKey or credentials.",
  "Problem.type": { enum: PROBLEM_SLUGS.map(problemType) },
  "Problem.title": { enum: [...new Set(Object.values(PROBLEMS).map(({ title }) => title))] },
  "Problem.status": { enum: [...new Set(Object.values(PROBLEMS).map(({ status }) => status))] },
  "Problem.errors": { minItems: 1 },
  "Problem.cause":
    "Of a refused validation (422): the orchestrator problem that refused it (the slug of its problem type). Clients branch on it, never on the detail's text.",
  "Problem.reason": "Of a refused validation (422): the orchestrator's reason, as the detail ends with it.",
};
