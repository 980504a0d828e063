export {
  CONNECTIONS_FILE,
  openConnectionsFile,
  type ConnectionsFile,
  type Mutation,
  type OpenConnectionsFileOptions,
} from "./connections-file.js";
export { ConnectionsFileFailure, describeConnectionsFileError, type ConnectionsFileError } from "./errors.js";
export { FILE_FORMAT, SCHEMA_VERSION, type ConnectionsState, type StoredConnection } from "./file-format.js";
export { createLowdbConnectionRepository } from "./lowdb-connection-repository.js";
export { AUDIT_FILE, createLowdbAuditLog, type AuditJournal, type LowdbAuditLogOptions } from "./audit-file.js";
export { WRITE_PROBE_FILE } from "./write-probe.js";
export { createLowdbHealthLedger, HEALTH_FILE, type LowdbHealthLedgerOptions } from "./health-file.js";
