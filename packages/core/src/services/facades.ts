import type * as TE from "fp-ts/lib/TaskEither.js";
import type { Actor } from "../domain/audit.js";
import type { ConnectionSummary } from "../domain/connection.js";
import type { CustomerList } from "../domain/customer-list.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionHealth } from "../domain/health.js";
import type { KeyRotationReport } from "../ports/connection-repository.js";
import type { AddConnectionOptions, AddConnectionOutcome } from "../use-cases/add-connection.js";
import type { ApplyOptions, Plan, PlanOptions, StepResult } from "../use-cases/configuration.js";
import type { DeleteConnectionOptions } from "../use-cases/delete-connection.js";
import type { ConnectionDetails } from "../use-cases/describe-connection.js";
import type { UpdateConnectionOptions, UpdateConnectionOutcome } from "../use-cases/update-connection.js";
import type { ValidationResult } from "../use-cases/validate-connection.js";
import type { AuditPage } from "./audit-trail.js";
import type { FeedDelivery, FollowOptions } from "./event-feed.js";
import type { GrantService } from "./grants.js";
import type { HealthMonitor } from "./health-monitor.js";
import type { KeyExpiryCounts } from "./key-expiry-watch.js";
import type { KeyReferenceWatch } from "./key-reference-watch.js";
import type { ServiceTokens } from "./service-tokens.js";
import type { Webhooks } from "./webhooks.js";

/** Who a write is audited as (anonymous when not given); failed writes are audited too. */
export type By = { readonly by?: Actor };

/** The connections (SPEC §1-§3): every write audited as `by`; bodies and aliases arrive untrusted and are decoded here. */
export interface Connections {
  list(): TE.TaskEither<DomainError, readonly ConnectionSummary[]>;
  add(body: unknown, options?: AddConnectionOptions & By): TE.TaskEither<DomainError, AddConnectionOutcome>;
  update(
    rawAlias: string,
    body: unknown,
    options?: UpdateConnectionOptions & By,
  ): TE.TaskEither<DomainError, UpdateConnectionOutcome>;
  validate(rawAlias: string): TE.TaskEither<DomainError, ValidationResult>;
  /** One connection as stored (version, key date, key fingerprint), without asking the orchestrator. */
  describe(rawAlias: string): TE.TaskEither<DomainError, ConnectionDetails>;
  /** A key that does not match is audited as a refused attempt by `by` (a guess at the key), before the answer. */
  checkKey(rawAlias: string, body: unknown, options?: By): TE.TaskEither<DomainError, { readonly matches: boolean }>;
  delete(rawAlias: string, options?: DeleteConnectionOptions & By): TE.TaskEither<DomainError, void>;
  /** A partner connection's customers, through the customers cache. */
  customers(rawAlias: string): TE.TaskEither<DomainError, CustomerList>;
  rotateMasterKey(options?: By): TE.TaskEither<DomainError, KeyRotationReport>;
  /** What applying a configuration (connections with their keys, grants) would change; see `planConfiguration`. */
  plan(rawDesired: unknown, options?: PlanOptions): TE.TaskEither<DomainError, Plan>;
  /** Carries out a plan through the audited writes, as `by`; a failed step does not stop the rest. */
  apply(plan: Plan, options?: ApplyOptions & By): Promise<readonly StepResult[]>;
}

/** The audit trail (SPEC §6): read in pages; what a driver refuses is recorded here too. */
export interface Audit {
  /** A page, newest first, from a query given as text; with `readable`, only its connections' entries (SPEC §11). */
  list(
    query: Readonly<Record<string, unknown>>,
    readable?: (alias: string) => boolean,
  ): TE.TaskEither<DomainError, AuditPage>;
  /** Audits a write refused to `by` (the driver refuses it; `method` is the request's). */
  forbidden(by: Actor, write: { readonly method: string; readonly alias?: string }): Promise<void>;
}

/** The event log (SPEC §8) as a feed. */
export interface Events {
  /**
   * Follows the log from a query given as text (`types`, `alias`, `lastEventId`): what came after `lastEventId`
   * (or a reset), then every new event, each to `deliver`. Answers the stop; `ended` hears why a remote follow ended.
   */
  follow(
    query: Readonly<Record<string, unknown>>,
    deliver: FeedDelivery,
    ended?: (error: DomainError) => void,
    options?: FollowOptions,
  ): TE.TaskEither<DomainError, () => void>;
}

/** Connection health (SPEC §7) and key expiry (§10). */
export interface Health {
  /** Every connection's health: the last background check's or validation's outcome (`unknown` until one). */
  list(): TE.TaskEither<DomainError, readonly ConnectionHealth[]>;
  /** The periodic checks, when an interval was given: started by whoever runs the service. */
  readonly monitor: HealthMonitor | undefined;
  /** `start()` (by whoever runs the service) scans the stored dates now and daily; `counts()` for /metrics. */
  readonly keyExpiry: { start(): void; scanNow(): Promise<void>; counts(): KeyExpiryCounts };
  /** The re-reading of keys kept elsewhere (SPEC §12), when a reader was given: started by whoever runs the service. */
  readonly keyReferences: KeyReferenceWatch | undefined;
  /** The key renewals' rounds (SPEC §12), when background health runs: started by whoever runs the service. */
  readonly keyRenewal: { start(): void; round(): Promise<void> } | undefined;
}

/**
 * Core's rules, one small facade per capability, over one store and one orchestrator (`createCore`). A driver
 * takes the facades it needs and translates: decode what its medium adds, call, map the answer.
 */
export interface Core {
  readonly connections: Connections;
  readonly audit: Audit;
  readonly events: Events;
  readonly health: Health;
  /** Webhooks (SPEC §9), when a sender was given; each change and redelivery audited. */
  readonly webhooks: Webhooks | undefined;
  /** Who may do what on which aliases (SPEC §11), kept in memory; each change audited. */
  readonly grants: GrantService;
  /** Service tokens (SPEC §11): created with their grants, renewed with overlap, revoked, looked up; each change audited. */
  readonly tokens: ServiceTokens;
  /** Stops listening for changes and waits for the audit entries still being recorded; the store belongs to the caller. */
  dispose(): Promise<void>;
}
