export {
  aCloudEvent,
  aConnection,
  aJwt,
  anAuditEntry,
  aCustomer,
  aWebhook,
  type CloudEventSource,
} from "./builders.js";
export {
  createInMemoryConnectionRepository,
  createInMemoryConnectionStore,
  type InMemoryConnectionStore,
} from "../src/adapters/memory-connection-repository.js";
export {
  createInMemoryOrchestrator,
  type InMemoryOrchestrator,
  type InMemoryOrchestratorAccount,
  type InMemoryOrchestratorOptions,
  type IssuedToken,
  type RenewalCalls,
} from "./in-memory-orchestrator.js";
export { createManualClock, createTestWorld, TEST_CUSTOMER_ID, TEST_KEYS, TEST_PARTNER_ID } from "./test-world.js";
export { expectLeft, expectRight } from "./run.js";
export {
  eventconfErrors,
  expandOpennmsKey,
  opennmsEventErrors,
  OPENNMS_NAMESPACES,
  OPENNMS_SEVERITIES,
  parseXml,
  readOpennmsEvent,
  type OpennmsEventRead,
  type XmlElement,
} from "./opennms-schema.js";
