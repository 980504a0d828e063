export { aConnection, aCustomer } from "./builders.js";
export {
  describeConnectionRepositoryContract,
  type ConnectionRepositoryContractOptions,
} from "./connection-repository-contract.js";
export {
  createInMemoryConnectionRepository,
  createInMemoryConnectionStore,
  type InMemoryConnectionStore,
} from "./in-memory-connection-repository.js";
export {
  createInMemoryOrchestrator,
  type InMemoryOrchestrator,
  type InMemoryOrchestratorAccount,
} from "./in-memory-orchestrator.js";
export {
  describeOrchestratorContract,
  type OrchestratorContractFixture,
  type OrchestratorContractOptions,
} from "./orchestrator-contract.js";
export { createManualClock, createTestWorld, TEST_CUSTOMER_ID, TEST_KEYS, TEST_PARTNER_ID } from "./test-world.js";
export { expectLeft, expectRight } from "./run.js";
