export { GroupsFileCodec, type Groups } from "./config.js";
export { compose, type Composition, type ComposeOptions } from "./compose.js";
export { processEnvironment } from "./environment.js";
export { loadConfig, type Config, type Network, type OidcConfig } from "./config.js";
export { describeMissingStore } from "./data-dir.js";
export { createLogger, type Logger } from "./logger.js";
// createMetrics is imported from "@sdwan-connections/composition/metrics": prom-client loads only where metrics are made.
export type { Metrics } from "./metrics.js";
export { openService, type OpenedService, type ServiceOverrides, type StartFailure } from "./open-service.js";
export { loadCertificateAuthorities, offlineOrchestrator } from "./parts/orchestrator.js";
export { StartupError, startupFailure } from "./startup-error.js";
export { locateStore, type StoreLocation } from "./stores.js";
export { IDS } from "./di-identifiers.js";
export type { OutboundFetch } from "@sdwan-connections/outbound-http";
// openTracing is loaded by openService only when OTEL_* turn traces on; drivers need its type alone.
export type { Tracing } from "./tracing.js";
