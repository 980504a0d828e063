import * as E from "fp-ts/lib/Either.js";
import type * as T from "fp-ts/lib/Task.js";
import type { Alias } from "../domain/codecs.js";
import type { StoredConnection } from "../domain/connection.js";
import type { DomainError } from "../domain/errors.js";
import type { HealthCheck, HealthState } from "../domain/health.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { HealthLedger } from "../ports/health-ledger.js";

/** A connection whose state a check changed. */
export interface HealthChange {
  readonly alias: string;
  /** The checked connection's orchestrator URL: what the change's event tells. */
  readonly orchestratorUrl: string;
  readonly from: HealthState;
  readonly to: HealthState;
  readonly check: HealthCheck;
}

export interface HealthStatesOptions {
  readonly ledger: HealthLedger;
  /** Where the checked connection is read again, so a check never outlives the connection it checked. */
  readonly repository: ConnectionRepository;
  /** Hears each state change; a record waits for what it answers (a validation's audit entry). */
  readonly onChange?: ((change: HealthChange) => void | Promise<void>) | undefined;
  /** A ledger that could not be written; the caller goes on. */
  readonly onError?: ((error: DomainError) => void) | undefined;
}

/**
 * The ledger's writes as the service makes them, from a background check, a
 * validation or a delete: never failing the caller (a ledger error is
 * reported), and every state change told.
 */
export const createHealthStates = ({ ledger, repository, onChange, onError }: HealthStatesOptions) => {
  const forget =
    (alias: Alias): T.Task<void> =>
    async () => {
      const forgotten = await ledger.forget(alias)();
      if (E.isLeft(forgotten)) onError?.(forgotten.left);
    };
  // Whether the connection is still the one checked: versions never repeat in a store, so a changed,
  // deleted or re-added connection reads as another.
  const stillStored = async (checked: StoredConnection): Promise<boolean> => {
    const now = await repository.get(checked.alias)();
    return E.isRight(now) && now.right.version === checked.version;
  };
  return {
    /**
     * Records the check of `checked` as its connection's health, unless the connection changed or went
     * while it was being checked (its state would belong to another key, or outlive a delete).
     */
    record:
      (checked: StoredConnection, check: HealthCheck): T.Task<void> =>
      async () => {
        if (!(await stillStored(checked))) return;
        const previous = await ledger.record(checked.alias, check)();
        if (E.isLeft(previous)) return onError?.(previous.left);
        // A delete that forgot the state between the read and the write: forget what was written.
        if (E.isLeft(await repository.get(checked.alias)())) return forget(checked.alias)();
        if (previous.right !== check.outcome)
          await onChange?.({
            alias: checked.alias,
            orchestratorUrl: checked.orchestratorUrl,
            from: previous.right,
            to: check.outcome,
            check,
          });
      },
    forget,
  };
};
