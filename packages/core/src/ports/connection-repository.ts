import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { AuditEntry } from "../domain/audit.js";
import type { Alias } from "../domain/codecs.js";
import type {
  Connection,
  ConnectionChange,
  ConnectionSummary,
  ExpectedVersions,
  StoredConnection,
} from "../domain/connection.js";
import type { DomainError } from "../domain/errors.js";

/** What a key rotation did: re-sealed connections, out of all stored. */
export interface KeyRotationReport {
  readonly rotated: number;
  readonly total: number;
}

/**
 * Where connections live. Aliases match case-insensitively everywhere, and
 * the alias is kept as first given. The repository receives apiKeys in the
 * clear and is responsible for storing them safely (encrypted at rest).
 * Failures of the store itself come back as `StorageFailure`.
 *
 * Each write takes an optional `entry`: the audit entry of the change, which
 * the store records in its own audit trail (the one its `AuditLog` lists) in
 * the same atomic step as the change. When the write answers, the entry is as
 * durable and as visible to every instance as the change; when the write
 * fails, nothing is recorded. A store that cannot record the entry makes no
 * change (a change is never made without its entry).
 */
export interface ConnectionRepository {
  /** The connection with this alias (any case), with its version and key date, or `NotFound`. */
  get(alias: Alias): TaskEither<DomainError, StoredConnection>;
  /**
   * Every connection, without keys, in no particular order.
   *
   * The list cache rule: while nothing changed, a store may answer the same
   * array again, and then it must be frozen; after any change made through
   * this repository it answers a new array. So whoever derives something
   * from a list (core sorts it, the REST driver serializes it) may keep that
   * in a WeakMap keyed by the array: it lives exactly as long as the list is
   * current. A store that builds a new array on every call keeps the rule too.
   */
  list(): TaskEither<DomainError, readonly ConnectionSummary[]>;
  /**
   * Stores a new connection, its key dated now, or `AlreadyExists` when the alias (any case) is taken. Its
   * version is greater than any this store gave before (to any connection, deleted ones included).
   */
  insert(connection: Connection, entry?: AuditEntry): TaskEither<DomainError, void>;
  /**
   * Applies a change atomically (fields not in it keep their stored value,
   * even when another writer changed them meanwhile), gives it a new version
   * (greater than any this store gave before), dates the key when the change
   * sets another one, and returns the result; or `NotFound`. A change that
   * changes nothing (the same URL, the same key, compared inside the store)
   * writes nothing and keeps the version. With `expected`, the check of the version and the change
   * are one atomic step: a version not among them fails with
   * `VersionMismatch` and changes nothing, whatever other writers do.
   */
  update(
    alias: Alias,
    change: ConnectionChange,
    expected?: ExpectedVersions,
    entry?: AuditEntry,
  ): TaskEither<DomainError, StoredConnection>;
  /** Removes the connection, or `NotFound`; with `expected`, atomically only at one of those versions, else `VersionMismatch`. */
  delete(alias: Alias, expected?: ExpectedVersions, entry?: AuditEntry): TaskEither<DomainError, void>;
  /** Succeeds when the store can be read and written now (for readiness checks). */
  ping(): TaskEither<DomainError, void>;
  /**
   * Re-seals every stored apiKey that is not sealed with the store's current
   * master key (after a master-key change). All or nothing: a key that does
   * not open fails it, naming its connection, and changes nothing.
   */
  resealKeys(entry?: AuditEntry): TaskEither<DomainError, KeyRotationReport>;
}
