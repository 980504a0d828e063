import { pipe } from "fp-ts/lib/function.js";
import * as T from "fp-ts/lib/Task.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { AliasCodec } from "../domain/codecs.js";
import type { ConnectionKind, StoredConnection } from "../domain/connection.js";
import { decodeInput } from "../domain/decode.js";
import type { DomainError, OrchestratorError } from "../domain/errors.js";
import type { HealthCheck } from "../domain/health.js";
import { identifyAsCheck } from "./identify-target.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { KeyFingerprints } from "../ports/key-fingerprints.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import type { Validation, VerboseValidation } from "../wire/connections.js";
import { detailsAnswer, detailsOf, type ConnectionDetails, type LearnedExpiry } from "./describe-connection.js";

/**
 * A validation's result: `type` when the key was accepted, `reason` when not, with `failure`, the kind of
 * orchestrator error (the key refused, or the orchestrator not reached), for callers that tell them apart
 * (the CLI's exit code); the stored version, key date and key fingerprint.
 */
export type ValidationResult = ConnectionDetails &
  (
    | { readonly valid: true; readonly type: ConnectionKind }
    | { readonly valid: false; readonly reason: string; readonly failure: OrchestratorError["_tag"] }
  );

/**
 * A validation as the interface answers it (docs/interface.md §2): alias, URL and `valid`; verbose adds the
 * key's `type` or the `reason` it is not valid, the connection's `version`, when its key was set and its fingerprint.
 */
export const validationAnswer = (result: ValidationResult, verbose: boolean): Validation | VerboseValidation => {
  const base = { alias: result.alias, orchestratorUrl: result.orchestratorUrl, valid: result.valid };
  if (!verbose) return base;
  return { ...base, ...(result.valid ? { type: result.type } : { reason: result.reason }), ...detailsAnswer(result) };
};

/**
 * Asks the orchestrator, now, whether the stored key is accepted. Never
 * answered from a cache, so a revoked key shows as invalid at once. An
 * orchestrator that refuses or cannot be reached makes `valid: false`: that
 * is the result of validating, not a failure of the service. The outcome is
 * recorded, before answering, as the connection's last known health.
 */
export const validateConnection =
  (deps: {
    readonly repository: ConnectionRepository;
    readonly orchestrator: Orchestrator;
    readonly fingerprints: KeyFingerprints;
    /** Records a check as the connection's health; never fails (see `createHealthStates`). */
    readonly recordHealth: (checked: StoredConnection, check: HealthCheck) => T.Task<void>;
    readonly learnedExpiry?: LearnedExpiry;
  }) =>
  (rawAlias: string): TE.TaskEither<DomainError, ValidationResult> =>
    pipe(
      TE.fromEither(decodeInput(AliasCodec, "alias")(rawAlias)),
      TE.flatMap(deps.repository.get),
      TE.flatMap((connection) => {
        const summary = detailsOf(deps.fingerprints, deps.learnedExpiry)(connection);
        return pipe(
          identifyAsCheck(deps.orchestrator, connection),
          T.tap(({ check }) => deps.recordHealth(connection, check)),
          T.map(({ identity }): ValidationResult =>
            identity._tag === "Right"
              ? { ...summary, valid: true, type: identity.right.kind }
              : { ...summary, valid: false, reason: identity.left.reason, failure: identity.left._tag },
          ),
          TE.fromTask,
        );
      }),
    );
