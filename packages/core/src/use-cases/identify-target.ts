import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import type * as T from "fp-ts/lib/Task.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Identity, OrchestratorTarget, StoredConnection } from "../domain/connection.js";
import { invalidInput, validationRefused, type DomainError, type OrchestratorError } from "../domain/errors.js";
import { healthOutcomeOf, type HealthCheck } from "../domain/health.js";
import type { Orchestrator } from "../ports/orchestrator.js";

/**
 * The check that guards add and update: the orchestrator must accept the key,
 * else the write is refused with the orchestrator's reason (unless forced).
 */
export const requireAccepted =
  (orchestrator: Orchestrator, alias: string, force: boolean) =>
  (target: OrchestratorTarget): TE.TaskEither<DomainError, Identity | undefined> =>
    force
      ? TE.right(undefined)
      : pipe(
          orchestrator.identify(target),
          TE.mapLeft((cause) => validationRefused(alias, cause)),
        );

/**
 * The check that guards add and update even when forced: the orchestrator
 * adapter must admit the URL as a destination (never link-local or a cloud
 * metadata service, unless configured explicitly).
 */
export const requireAdmitted = (orchestrator: Orchestrator, orchestratorUrl: string): E.Either<DomainError, void> =>
  pipe(
    orchestrator.admits(orchestratorUrl),
    E.mapLeft((reason) => invalidInput([{ field: "orchestratorUrl", message: reason }])),
  );

/** Asks the orchestrator whose key the connection holds, timed: its answer, and the health check that answer is. */
export const identifyAsCheck =
  (
    orchestrator: Orchestrator,
    connection: StoredConnection,
  ): T.Task<{ readonly identity: E.Either<OrchestratorError, Identity>; readonly check: HealthCheck }> =>
  async () => {
    const started = performance.now();
    const identity = await orchestrator.identify(connection)();
    const failure = E.isLeft(identity) ? identity.left : undefined;
    return {
      identity,
      check: {
        at: new Date(),
        outcome: healthOutcomeOf(failure),
        latencyMs: Math.round(performance.now() - started),
        reason: failure?.reason ?? null,
      },
    };
  };
