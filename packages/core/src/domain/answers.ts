import type { AddConnectionOutcome } from "../use-cases/add-connection.js";
import type { UpdateConnectionOutcome } from "../use-cases/update-connection.js";

/** The words a successful add or update is answered with (docs/interface.md §1), for the drivers and the OpenAPI document. */
export const ANSWER_TEXT = {
  added: "Connection successfully added",
  updated: "Connection successfully updated",
  // The original's words for every update that succeeded, whether it changed anything or not.
  unchanged: "Connection successfully updated",
  "dry-run": "Dry run successful",
} as const satisfies Record<AddConnectionOutcome | UpdateConnectionOutcome, string>;
