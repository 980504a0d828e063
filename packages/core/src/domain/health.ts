import type { Alias } from "./codecs.js";
import type { OrchestratorError } from "./errors.js";

/** What the last background check found: the key accepted, refused, the orchestrator not answering usefully; or never checked. */
export const HEALTH_STATES = ["valid", "invalid", "unreachable", "unknown"] as const;
export type HealthState = (typeof HEALTH_STATES)[number];

/** What one check can find: every state but `unknown`. */
export const HEALTH_CHECK_OUTCOMES = HEALTH_STATES.filter(
  (state): state is Exclude<HealthState, "unknown"> => state !== "unknown",
);

/** One background check of a connection. */
export interface HealthCheck {
  readonly at: Date;
  readonly outcome: Exclude<HealthState, "unknown">;
  readonly latencyMs: number;
  /** Why it is not valid (the orchestrator error's reason, written by us); null when valid. */
  readonly reason: string | null;
}

/** A connection's health: its state, since when, and its last checks, newest first. */
export interface ConnectionHealth {
  readonly alias: Alias;
  readonly state: HealthState;
  readonly since: Date | null;
  readonly checks: readonly HealthCheck[];
}

/** A refused key is `invalid`; anything else that kept the orchestrator from answering is `unreachable`. */
export const healthOutcomeOf = (error: OrchestratorError | undefined): HealthCheck["outcome"] =>
  error === undefined ? "valid" : error._tag === "OrchestratorRejected" ? "invalid" : "unreachable";

/** How many checks each connection keeps. */
export const HEALTH_HISTORY = 10;

/** A connection's health after `check` (`before`: its health so far, if any): what every ledger stores. */
export const withCheck = (
  before: ConnectionHealth | undefined,
  alias: Alias,
  check: HealthCheck,
): ConnectionHealth => ({
  alias: before?.alias ?? alias,
  state: check.outcome,
  since: before?.state === check.outcome ? (before.since ?? check.at) : check.at,
  checks: [check, ...(before?.checks ?? [])].slice(0, HEALTH_HISTORY),
});
