export {
  Dataset,
  PartnerRecord,
  decodeDataset,
  DEFAULT_NULL_SHARE,
  generateDataset,
  GENERATED_TOKEN_EXPIRATION,
  NULLABLE_ENTERPRISE_FIELDS,
} from "./dataset.js";
export {
  PORTAL_METHODS,
  loadSampleDataset,
  startOrchestratorSimulator,
  type Fault,
  type OrchestratorSimulator,
  type PortalMethod,
} from "./simulator.js";
export { MAX_TOKEN_LIFETIME_MS, withJwtKeys, type SimulatorToken } from "./tokens.js";
export { createTestCertificates } from "./test-certificates.js";
