import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { Alias } from "../domain/codecs.js";
import type { Connection, ConnectionChange, ConnectionSummary, ExpectedVersions, StoredConnection } from "../domain/connection.js";
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
  /** Stores a new connection at version 1, its key dated now, or `AlreadyExists` when the alias (any case) is taken. */
  insert(connection: Connection): TaskEither<DomainError, void>;
  /**
   * Applies a change atomically (fields not in it keep their stored value,
   * even when another writer changed them meanwhile), adds one to the
   * version, dates the key when the change has one, and returns the result;
   * or `NotFound`. With `expected`, the check of the version and the change
   * are one atomic step: a version not among them fails with
   * `VersionMismatch` and changes nothing, whatever other writers do.
   */
  update(alias: Alias, change: ConnectionChange, expected?: ExpectedVersions): TaskEither<DomainError, StoredConnection>;
  /** Removes the connection, or `NotFound`; with `expected`, atomically only at one of those versions, else `VersionMismatch`. */
  delete(alias: Alias, expected?: ExpectedVersions): TaskEither<DomainError, void>;
  /** Succeeds when the store can be read and written now (for readiness checks). */
  ping(): TaskEither<DomainError, void>;
  /**
   * Re-seals every stored apiKey that is not sealed with the store's current
   * master key (after a master-key change). All or nothing: a key that does
   * not open fails it, naming its connection, and changes nothing.
   */
  resealKeys(): TaskEither<DomainError, KeyRotationReport>;
}
