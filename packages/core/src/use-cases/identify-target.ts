import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Identity, OrchestratorTarget } from "../domain/connection.js";
import { validationRefused, type DomainError } from "../domain/errors.js";
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
