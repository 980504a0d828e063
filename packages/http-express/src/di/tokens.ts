import type { Clock, ConnectionChanges, ConnectionRepository, ConnectionService, Orchestrator } from "@sdwan-connections/core";
import type { Express } from "express";
import type { ServiceIdentifier } from "inversify";
import type { Authenticator } from "../auth/authenticator.js";
import type { LoginThrottle } from "../auth/throttle.js";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics.js";

/** What a storage adapter module provides: the repository, how changes travel, and how to close it. */
export interface Storage {
  readonly repository: ConnectionRepository;
  readonly changes: ConnectionChanges;
  close(): Promise<void>;
}

/** Shared by the server (which sets it on shutdown) and the app (whose `/readyz` reports it). */
export interface Lifecycle {
  draining: boolean;
}

/** Users and their verified-credentials cache, with the watcher that reloads them. */
export interface Auth {
  readonly authenticator: Authenticator;
  readonly throttle: LoginThrottle;
  close(): void;
}

/** One symbol per thing the composition root wires; the type parameter keeps `get` typed. */
export const TOKENS = {
  Config: Symbol.for("sdwan.Config") as ServiceIdentifier<Config>,
  Logger: Symbol.for("sdwan.Logger") as ServiceIdentifier<Logger>,
  Metrics: Symbol.for("sdwan.Metrics") as ServiceIdentifier<Metrics>,
  Clock: Symbol.for("sdwan.Clock") as ServiceIdentifier<Clock>,
  Lifecycle: Symbol.for("sdwan.Lifecycle") as ServiceIdentifier<Lifecycle>,
  Storage: Symbol.for("sdwan.Storage") as ServiceIdentifier<Storage>,
  Orchestrator: Symbol.for("sdwan.Orchestrator") as ServiceIdentifier<Orchestrator>,
  ConnectionService: Symbol.for("sdwan.ConnectionService") as ServiceIdentifier<ConnectionService>,
  Auth: Symbol.for("sdwan.Auth") as ServiceIdentifier<Auth>,
  App: Symbol.for("sdwan.App") as ServiceIdentifier<Express>,
} as const;
