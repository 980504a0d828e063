export {
  ApiTokenRecord,
  BASTION_STATES,
  CustomerKeyRecord,
  Dataset,
  EnterpriseRecord,
  PartnerRecord,
  decodeDataset,
  DEFAULT_NULL_SHARE,
  generateDataset,
  GENERATED_TOKEN_EXPIRATION,
  NULLABLE_ENTERPRISE_FIELDS,
  type GenerateOptions,
} from "./dataset.js";
export {
  PORTAL_METHODS,
  loadDataset,
  loadSampleDataset,
  startOrchestratorSimulator,
  type CallCounts,
  type Fault,
  type OrchestratorSimulator,
  type PortalMethod,
  type RecordedRequest,
  type SimulatorOptions,
} from "./simulator.js";
export type { Hold, HoldMatch } from "./holds.js";
export { MAX_TOKEN_LIFETIME_MS, withJwtKeys, type SimulatorToken, type TokenOwner, type TokenState } from "./tokens.js";
export { parseCliOptions, type CliOptions } from "./cli.js";
export { createTestCertificates, type TestCertificates } from "./test-certificates.js";
