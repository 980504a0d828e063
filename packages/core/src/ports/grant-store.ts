import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { DomainError } from "../domain/errors.js";
import type { Grant } from "../domain/grants.js";

/**
 * The grants (SPEC §11), shared by every instance over one store. Readers keep them in memory and read them
 * again when `subscribe` says they changed, which it does within a second of a change by any instance.
 */
export interface GrantStore {
  /** Every grant, oldest first. */
  list(): TaskEither<DomainError, readonly Grant[]>;
  /** Adds `grant`; false, changing nothing, when one saying the same (core's `sameGrant`) exists. */
  add(grant: Grant): TaskEither<DomainError, boolean>;
  /** Removes grant `id`: the grant removed, or undefined when there was none. */
  remove(id: string): TaskEither<DomainError, Grant | undefined>;
  /**
   * Calls `listener` after every change, this instance's (before the change's call answers) or another's
   * (within a second), and whenever changes may have been missed. Returns the unsubscriber.
   */
  subscribe(listener: () => void): () => void;
}
