import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { AuditEntry, AuditHead, AuditPageAfter, AuditQuery } from "../domain/audit.js";
import type { DomainError } from "../domain/errors.js";

/**
 * Where the audit trail lives: durably, in the same store as the
 * connections. A log keeps what its retention allows (the newest entries,
 * none too old); the entries it drops are gone from every list. The trail is
 * also the event log: readers catch up with `listAfter` and hear new entries
 * through `subscribe`.
 */
export interface AuditLog {
  /** Appends an entry (its `id` is already unique and sortable). */
  record(entry: AuditEntry): TaskEither<DomainError, void>;
  /** A page, newest first: the entries `query` selects, at most `limit` of them. Aliases match in any case. */
  list(query: AuditQuery): TaskEither<DomainError, readonly AuditEntry[]>;
  /**
   * Of the kept entries whose id is greater than `after` (every kept entry when null), oldest first, the next
   * `limit`: those `select` keeps (every one when not given), asked of each entry's stored alias, action and outcome
   * before the rest of it is decoded; and the id to read on after (the last read), null when fewer than `limit` were
   * read (the end). A page at a time,
   * what a reader that has `after` has not seen, costing what the page holds, never what the trail holds.
   */
  listAfter(
    after: string | null,
    limit: number,
    select?: (head: AuditHead) => boolean,
  ): TaskEither<DomainError, AuditPageAfter>;
  /**
   * Calls `listener` once with every entry recorded over the store from the moment this answers Right, by
   * this process or any other (within a second): a change's entry once the change is durable, never one
   * whose change did not happen. Returns the unsubscriber.
   */
  subscribe(listener: (entry: AuditEntry) => void): TaskEither<DomainError, () => void>;
}
