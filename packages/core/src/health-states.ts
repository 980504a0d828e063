import { performance } from "node:perf_hooks";
import * as E from "fp-ts/lib/Either.js";
import type * as T from "fp-ts/lib/Task.js";
import type { Alias } from "./domain/codecs.js";
import type { Identity, StoredConnection } from "./domain/connection.js";
import type { DomainError, OrchestratorError } from "./domain/errors.js";
import { healthOutcomeOf, type HealthCheck, type HealthState } from "./domain/health.js";
import type { HealthLedger } from "./ports/health-ledger.js";
import type { Orchestrator } from "./ports/orchestrator.js";

/** A connection whose state a check changed. */
export interface HealthChange {
  readonly alias: string;
  readonly from: HealthState;
  readonly to: HealthState;
  readonly check: HealthCheck;
}

/** Asks the orchestrator whose key the connection holds, timed: its answer, and the health check that answer is. */
export const identifyAsCheck =
  (orchestrator: Orchestrator, connection: StoredConnection): T.Task<{ readonly identity: E.Either<OrchestratorError, Identity>; readonly check: HealthCheck }> =>
  async () => {
    const started = performance.now();
    const identity = await orchestrator.identify(connection)();
    const failure = E.isLeft(identity) ? identity.left : undefined;
    return {
      identity,
      check: { at: new Date(), outcome: healthOutcomeOf(failure), latencyMs: Math.round(performance.now() - started), reason: failure?.reason ?? null },
    };
  };

export interface HealthStatesOptions {
  readonly ledger: HealthLedger;
  /** Hears each state change. */
  readonly onChange?: ((change: HealthChange) => void) | undefined;
  /** A ledger that could not be written; the caller goes on. */
  readonly onError?: ((error: DomainError) => void) | undefined;
}

/**
 * The ledger's writes as the service makes them, from a background check, a
 * validation or a delete: never failing the caller (a ledger error is
 * reported), and every state change told.
 */
export const createHealthStates = ({ ledger, onChange, onError }: HealthStatesOptions) => ({
  record:
    (alias: Alias, check: HealthCheck): T.Task<void> =>
    async () => {
      const previous = await ledger.record(alias, check)();
      if (E.isLeft(previous)) return onError?.(previous.left);
      if (previous.right !== check.outcome) onChange?.({ alias, from: previous.right, to: check.outcome, check });
    },
  forget:
    (alias: Alias): T.Task<void> =>
    async () => {
      const forgotten = await ledger.forget(alias)();
      if (E.isLeft(forgotten)) onError?.(forgotten.left);
    },
});

export type HealthStates = ReturnType<typeof createHealthStates>;
