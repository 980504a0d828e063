import type { GrantVerb } from "@sdwan-connections/core/wire";
import { VERBS } from "./rights.js";

/** A grant a new service token is made with: an alias pattern and a verb (the subject is the token itself). */
export interface PatternVerb {
  readonly pattern: string;
  readonly verb: GrantVerb;
}

/**
 * The grants a text names, one per line as `PATTERN VERB` (`emea-* read`); blank lines are skipped. Either every
 * line read, or the first that cannot be (1-based), so the form says which.
 */
export const parseGrantLines = (
  text: string,
): { readonly grants: readonly PatternVerb[] } | { readonly badLine: number } => {
  const grants: PatternVerb[] = [];
  const lines = text.split("\n");
  for (const [index, line] of lines.entries()) {
    const words = line.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) continue;
    const [pattern, verb] = words;
    if (words.length !== 2 || pattern === undefined || !VERBS.includes(verb as GrantVerb))
      return { badLine: index + 1 };
    grants.push({ pattern, verb: verb as GrantVerb });
  }
  return { grants };
};
