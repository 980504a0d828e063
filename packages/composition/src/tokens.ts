import type { AuditLog, Clock, ConnectionChanges, ConnectionRepository, ConnectionService, FailureCounter, HealthLedger, KeyFingerprints, Orchestrator } from "@sdwan-connections/core";
import type { ServiceIdentifier } from "inversify";
import type { Config } from "./config.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";

/** What a storage module provides: the repository, how changes travel between instances, the fingerprints of its keys, its audit log, health states, failure counts, and how to close it. */
export interface Storage {
  readonly repository: ConnectionRepository;
  readonly changes: ConnectionChanges;
  readonly fingerprints: KeyFingerprints;
  readonly audit: AuditLog;
  /** Background health states, shared by the instances over this store. */
  readonly health: HealthLedger;
  /** Failed logins and key checks per client (SDWAN_LOGIN_WINDOW_MS), shared by the instances over this store. */
  readonly failures: FailureCounter;
  close(): Promise<void>;
}

/** One symbol per thing the composition binds; the type parameter keeps `get` typed. Drivers add their own. */
export const TOKENS = {
  Config: Symbol.for("sdwan.Config") as ServiceIdentifier<Config>,
  Logger: Symbol.for("sdwan.Logger") as ServiceIdentifier<Logger>,
  Metrics: Symbol.for("sdwan.Metrics") as ServiceIdentifier<Metrics>,
  Clock: Symbol.for("sdwan.Clock") as ServiceIdentifier<Clock>,
  Storage: Symbol.for("sdwan.Storage") as ServiceIdentifier<Storage>,
  Orchestrator: Symbol.for("sdwan.Orchestrator") as ServiceIdentifier<Orchestrator>,
  ConnectionService: Symbol.for("sdwan.ConnectionService") as ServiceIdentifier<ConnectionService>,
} as const;
