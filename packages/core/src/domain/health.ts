import * as t from "io-ts";
import { AliasCodec, aliasKey, IntegerCodec, IsoTimeCodec, type Alias } from "./codecs.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { oneOf } from "./decode.js";
import type { DomainError, OrchestratorError } from "./errors.js";

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

/**
 * What a health ledger holds, per alias key: each connection's health, the last interval claimed for its check, and
 * the key-expiry warnings claimed for the key a mark names.
 */
export interface HealthRecords {
  readonly connections: Map<string, { readonly health: ConnectionHealth }>;
  readonly claims: Map<string, { readonly window: number }>;
  readonly warnings: Map<string, { readonly mark: string; readonly thresholds: readonly number[] }>;
}
/** A change of the records, made in place (a store then keeps them): whether it changed anything, and the answer. */
export type HealthRecordsChange<A> = (records: HealthRecords) => { readonly changed: boolean; readonly answer: A };

/** The health ledger's rules (`HealthLedger`'s changes) over its records, each change made by the store's `apply`. */
export const healthRules = (apply: <A>(change: HealthRecordsChange<A>) => TaskEither<DomainError, A>) => ({
  claim: (alias: Alias, window: number) =>
    apply(({ claims }) => {
      const key = aliasKey(alias);
      if ((claims.get(key)?.window ?? -1) >= window) return { changed: false, answer: false };
      claims.set(key, { window });
      return { changed: true, answer: true };
    }),
  // A claim for another mark drops the claims of the mark before it.
  claimKeyWarning: (alias: Alias, mark: string, threshold: number) =>
    apply(({ warnings }) => {
      const key = aliasKey(alias);
      const claimed = warnings.get(key)?.mark === mark ? warnings.get(key) : undefined;
      if (claimed?.thresholds.includes(threshold) === true) return { changed: false, answer: false };
      warnings.set(key, { mark, thresholds: [...(claimed?.thresholds ?? []), threshold] });
      return { changed: true, answer: true };
    }),
  record: (alias: Alias, check: HealthCheck) =>
    apply(({ connections }) => {
      const key = aliasKey(alias);
      const before = connections.get(key)?.health;
      connections.set(key, { health: withCheck(before, alias, check) });
      return { changed: true, answer: before?.state ?? ("unknown" as const) };
    }),
  forget: (alias: Alias) =>
    apply(({ connections, claims, warnings }) => {
      const key = aliasKey(alias);
      return {
        changed: [connections.delete(key), claims.delete(key), warnings.delete(key)].includes(true),
        answer: undefined,
      };
    }),
});
