export { aConnection, anAuditEntry, aCustomer } from "./builders.js";
export {
  createInMemoryConnectionRepository,
  createInMemoryConnectionStore,
  type InMemoryConnectionStore,
} from "./in-memory-connection-repository.js";
export { createInMemoryStorage, type InMemoryStorageOptions } from "./in-memory-storage.js";
export {
  createInMemoryOrchestrator,
  type InMemoryOrchestrator,
  type InMemoryOrchestratorAccount,
} from "./in-memory-orchestrator.js";
export { createManualClock, createTestWorld, TEST_CUSTOMER_ID, TEST_KEYS, TEST_PARTNER_ID } from "./test-world.js";
export { expectLeft, expectRight } from "./run.js";
