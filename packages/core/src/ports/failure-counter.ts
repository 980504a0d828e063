import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { DomainError } from "../domain/errors.js";

/** A client's failures in its current window. */
export interface FailureCount {
  /** Failures counted in the window (0 when none is open). */
  readonly count: number;
  /** Milliseconds until the window ends (0 when none is open). */
  readonly msLeft: number;
}

/**
 * Failures per client in a fixed window opened by the client's first failure
 * (the window's length is the counter's, set when it is made), shared by
 * every instance of the service over one store. The failed-login throttle
 * reserves a failure with `add` before an expensive check, so concurrent
 * requests cannot all pass one stale count, and gives it back with `remove`
 * when the check succeeds. When the shared count cannot be reached, `add`
 * fails: a count kept elsewhere (this process's memory) would let each
 * instance make its own `maxFailures` checks.
 */
export interface FailureCounter {
  /** Counts one failure of `client`, atomically among all instances; answers the count including it, or fails when the shared count is out of reach. */
  add(client: string): TaskEither<DomainError, FailureCount>;
  /** Takes back one failure `add` counted in the current window. */
  remove(client: string): TaskEither<DomainError, void>;
  /** The count now, unchanged. */
  peek(client: string): TaskEither<DomainError, FailureCount>;
}
