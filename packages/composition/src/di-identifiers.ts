import type { Clock, Core, Orchestrator, Storage } from "@sdwan-connections/core";
import type { ServiceIdentifier } from "inversify";
import type { OutboundFetch } from "@sdwan-connections/outbound-http";
import type { Config } from "./config.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";
import type { Tracing } from "./tracing.js";

/** One symbol per thing the composition binds; the type parameter keeps `get` typed. Drivers add their own. */
export const IDS = {
  Config: Symbol.for("sdwan.Config") as ServiceIdentifier<Config>,
  Logger: Symbol.for("sdwan.Logger") as ServiceIdentifier<Logger>,
  Metrics: Symbol.for("sdwan.Metrics") as ServiceIdentifier<Metrics>,
  Clock: Symbol.for("sdwan.Clock") as ServiceIdentifier<Clock>,
  Storage: Symbol.for("sdwan.Storage") as ServiceIdentifier<Storage>,
  Orchestrator: Symbol.for("sdwan.Orchestrator") as ServiceIdentifier<Orchestrator>,
  Core: Symbol.for("sdwan.Core") as ServiceIdentifier<Core>,
  OutboundFetch: Symbol.for("sdwan.OutboundFetch") as ServiceIdentifier<OutboundFetch>,
  /** Bound only when traces are on (OTEL_*). */
  Tracing: Symbol.for("sdwan.Tracing") as ServiceIdentifier<Tracing>,
} as const;
