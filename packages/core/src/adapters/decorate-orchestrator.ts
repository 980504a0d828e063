import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { OrchestratorTarget } from "../domain/connection.js";
import type { OrchestratorError } from "../domain/errors.js";
import type { Orchestrator } from "../ports/orchestrator.js";

// `inner` with some calls replaced by `overrides`, every other one forwarded (the calls below: a new one is listed there).
export const decorateOrchestrator = (inner: Orchestrator, overrides: Partial<Orchestrator>): Orchestrator => ({
  startDeadline: () => inner.startDeadline(),
  admits: (orchestratorUrl) => inner.admits(orchestratorUrl),
  ...(Object.fromEntries(TARGET_CALLS.map((call) => [call, forwarded(inner, call)])) as Pick<Orchestrator, TargetCall>),
  ...overrides,
});

const forwarded =
  (inner: Orchestrator, call: TargetCall) =>
  (...args: unknown[]): TaskEither<OrchestratorError, unknown> =>
    (inner[call] as (...args: unknown[]) => TaskEither<OrchestratorError, unknown>).apply(inner, args);

/** The port's calls that ask the orchestrator, each taking its target first: all but `startDeadline` and `admits`. */
export const TARGET_CALLS = [
  "identify",
  "listPartnerCustomers",
  "listApiTokens",
  "refreshApiToken",
  "createApiToken",
  "downloadApiToken",
  "revokeApiToken",
] as const satisfies readonly (keyof Orchestrator)[];
export type TargetCall = (typeof TARGET_CALLS)[number];
// The build fails here when the port gains a call that asks the orchestrator and the list above lacks it.
const everyCallListed: Exclude<keyof Orchestrator, TargetCall | "startDeadline" | "admits"> extends never
  ? true
  : never = true;
void everyCallListed;

/**
 * `inner` with every call that asks the orchestrator made through `around` (given the call's name, its target and the
 * call itself, not yet run): a span, a timer, a refusal; `startDeadline` and `admits` forwarded.
 */
export const aroundTargetCalls = (
  inner: Orchestrator,
  around: <A>(
    call: TargetCall,
    target: OrchestratorTarget,
    made: TaskEither<OrchestratorError, A>,
  ) => TaskEither<OrchestratorError, A>,
): Orchestrator =>
  decorateOrchestrator(
    inner,
    Object.fromEntries(
      TARGET_CALLS.map((call) => [
        call,
        (target: OrchestratorTarget, ...rest: unknown[]) =>
          around(call, target, forwarded(inner, call)(target, ...rest)),
      ]),
    ) as Partial<Orchestrator>,
  );
