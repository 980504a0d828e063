export { compose, storageModuleFor, type Composition, type ComposeOptions } from "./compose.js";
export { EnvCodecs, LOG_LEVELS, loadConfig, processEnvironment, type Config, type LogLevel, type Network } from "./config.js";
export { describeMissingStore, locateStore, type StoreLocation } from "./data-dir.js";
export { createLogger, REDACTED_PATHS, type Logger } from "./logger.js";
// createMetrics is imported from "@sdwan-connections/composition/metrics": prom-client loads only where metrics are made.
export type { Metrics } from "./metrics.js";
export { coreModule } from "./modules/core.js";
export { lowdbStorageModule } from "./modules/lowdb.js";
export { observabilityModule, type ObservabilityOptions } from "./modules/observability.js";
export { offlineOrchestratorModule, portalOrchestratorModule } from "./modules/portal.js";
export { closeOrchestrator, loadCertificateAuthorities, offlineOrchestrator, openPortalOrchestrator } from "./parts/orchestrator.js";
export { serviceFor, type ServiceParts } from "./parts/service.js";
export { openLowdbStorageFor, openPostgresStorageFor, openStorageFor } from "./parts/storage.js";
export { postgresStorageModule } from "./modules/postgres.js";
export { orFail, StartupError, startupFailure } from "./startup-error.js";
export { TOKENS } from "./tokens.js";
