import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { AuditEntry, AuditQuery } from "../domain/audit.js";
import type { DomainError } from "../domain/errors.js";

/**
 * Where the audit trail lives: durably, in the same store as the
 * connections. A log keeps what its retention allows (the newest entries,
 * none too old); the entries it drops are gone from every list.
 */
export interface AuditLog {
  /** Appends an entry (its `id` is already unique and sortable). */
  record(entry: AuditEntry): TaskEither<DomainError, void>;
  /** A page, newest first: the entries `query` selects, at most `limit` of them. Aliases match in any case. */
  list(query: AuditQuery): TaskEither<DomainError, readonly AuditEntry[]>;
}
