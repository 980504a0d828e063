/**
 * The contract suites (vitest): one per port, run by every adapter of that
 * port from its own tests. Kept apart from `core/testing` so that the
 * in-memory adapters and builders import no test runner.
 */
export {
  describeConnectionRepositoryContract,
  type ConnectionRepositoryContractOptions,
} from "./connection-repository-contract.js";
export {
  describeOrchestratorContract,
  type OrchestratorContractFixture,
  type OrchestratorContractOptions,
} from "./orchestrator-contract.js";
export { describeKeyFingerprintsContract, type KeyFingerprintsContractOptions } from "./key-fingerprints-contract.js";
export { describeAuditLogContract, type AuditLogContractOptions } from "./audit-log-contract.js";
export { describeHealthLedgerContract, type HealthLedgerContractOptions } from "./health-ledger-contract.js";
export {
  describeConnectionChangesContract,
  type ConnectionChangesContractOptions,
} from "./connection-changes-contract.js";
export { describeFailureCounterContract, type FailureCounterContractOptions } from "./failure-counter-contract.js";
export {
  describeServiceTokenStoreContract,
  type ServiceTokenStoreContractOptions,
} from "./service-token-store-contract.js";
export { describeGrantStoreContract, type GrantStoreContractOptions } from "./grant-store-contract.js";
export { describeStorageContract, type StorageContractOptions } from "./storage-contract.js";
export { describeWebhookStoreContract, type WebhookStoreContractOptions } from "./webhook-store-contract.js";
export { describeRenewalLedgerContract, type RenewalLedgerContractOptions } from "./renewal-ledger-contract.js";
