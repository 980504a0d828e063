import * as t from "io-ts";
import { AliasCodec, IntegerCodec, IsoTimeCodec, type Alias } from "./codecs.js";
import { oneOf } from "./decode.js";
import type { OrchestratorError } from "./errors.js";

/** What the last background check found: the key accepted, refused, the orchestrator not answering usefully; or never checked. */
export const HEALTH_STATES = ["valid", "invalid", "unreachable", "unknown"] as const;
export type HealthState = (typeof HEALTH_STATES)[number];
export const HealthStateCodec = oneOf(HEALTH_STATES, "HealthState");

/** What one check can find: every state but `unknown`. */
export const HEALTH_CHECK_OUTCOMES = HEALTH_STATES.filter(
  (state): state is Exclude<HealthState, "unknown"> => state !== "unknown",
);

/** One check of a connection: its outcome, how long it took, and why it is not valid (our words; null when valid). */
export const HealthCheckCodec = t.type(
  {
    at: IsoTimeCodec,
    outcome: oneOf(HEALTH_CHECK_OUTCOMES, "HealthCheckOutcome"),
    latencyMs: IntegerCodec,
    reason: t.union([t.string, t.null]),
  },
  "HealthCheck",
);
export type HealthCheck = t.TypeOf<typeof HealthCheckCodec>;

/** A connection's health: its state, since when (null: never checked), and its last checks, newest first. */
export const ConnectionHealthCodec = t.type(
  {
    alias: AliasCodec,
    state: HealthStateCodec,
    since: t.union([IsoTimeCodec, t.null]),
    checks: t.readonlyArray(HealthCheckCodec),
  },
  "ConnectionHealth",
);
export type ConnectionHealth = t.TypeOf<typeof ConnectionHealthCodec>;

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
