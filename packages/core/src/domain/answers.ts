/** What a successful add answers: it was added, or a dry run found it would be. */
export type AddConnectionOutcome = "added" | "dry-run";
/** What a successful update answers; `unchanged`: the change changed nothing (the URL and key stored already), so the version stays. */
export type UpdateConnectionOutcome = "updated" | "unchanged" | "dry-run";

/** The words a successful add or update is answered with (docs/interface.md §1), for the drivers and the OpenAPI document. */
export const ANSWER_TEXT = {
  added: "Connection successfully added",
  updated: "Connection successfully updated",
  // The original's words for every update that succeeded, whether it changed anything or not.
  unchanged: "Connection successfully updated",
  "dry-run": "Dry run successful",
} as const satisfies Record<AddConnectionOutcome | UpdateConnectionOutcome, string>;
