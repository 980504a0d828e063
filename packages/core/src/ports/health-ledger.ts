import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { Alias } from "../domain/codecs.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionHealth, HealthCheck, HealthState } from "../domain/health.js";

/**
 * Where background health lives, shared by every instance of the service
 * over one store, so that a connection is checked by one instance per
 * interval and every instance answers the same states.
 */
export interface HealthLedger {
  /**
   * Takes the check of `alias` in the interval numbered `window` (time ÷
   * interval): true for exactly one caller among all instances, false for
   * every other claim of that window or an earlier one.
   */
  claim(alias: Alias, window: number): TaskEither<DomainError, boolean>;
  /**
   * Adds a check (keeping the newest `HEALTH_HISTORY`); answers the state before it, so a change can be
   * told. Needs no claim: a background round records what it claimed, a validation what it found.
   */
  record(alias: Alias, check: HealthCheck): TaskEither<DomainError, HealthState>;
  /**
   * Takes the key-expiry warning of `alias` at `threshold` (days; 0 at expiry) for the key `keyMark` names
   * (`keyMark` in core's key-expiry domain): true for exactly one caller among all instances and across
   * restarts, false for every other claim of the same warning. A claim for another mark drops the alias's
   * claims of the marks before it (a new key starts its thresholds again).
   */
  claimKeyWarning(alias: Alias, keyMark: string, threshold: number): TaskEither<DomainError, boolean>;
  /** Removes the health of `alias` (any case), claims included, when its connection is deleted: an alias added again starts `unknown`. */
  forget(alias: Alias): TaskEither<DomainError, void>;
  /** The health of every connection checked and not forgotten since (any case of alias, as first recorded). */
  list(): TaskEither<DomainError, readonly ConnectionHealth[]>;
}
