export {
  createPostgresConnectionRepository,
  type PostgresConnectionRepositoryOptions,
} from "./connection-repository.js";
export {
  createPostgresConnectionChanges,
  DEFAULT_CHANGES_CHANNEL,
  type PostgresConnectionChanges,
  type PostgresConnectionChangesOptions,
} from "./connection-changes.js";
export { describeDatabaseError } from "./database-errors.js";
export {
  migrate,
  MIGRATION_LOCK_KEY,
  MIGRATIONS,
  SCHEMA_VERSION,
  type Migration,
  type MigrationReport,
} from "./migrations.js";
export { rotateKeys, verifyMasterKeys } from "./rotate-keys.js";
export { openPostgresStorage, reachPostgres, type OpenPostgresStorageOptions } from "./open-postgres-storage.js";
export { createPostgresAuditLog, type PostgresAuditLogOptions } from "./audit-log.js";
export { createPostgresHealthLedger } from "./health-ledger.js";
export { createPostgresRenewalLedger } from "./renewals.js";
export { createPostgresFailureCounter, FAILURES_TABLE, type PostgresFailureCounterOptions } from "./failure-counter.js";
export { createPostgresServiceTokenStore, SERVICE_TOKENS_TABLE } from "./service-tokens.js";
export { createPostgresGrantStore, GRANTS_TABLE, GRANT_CHANGES_CHANNEL, type PostgresGrantStore } from "./grants.js";
