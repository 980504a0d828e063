export {
  createPortalOrchestrator,
  defaultFetch,
  DEFAULT_CUSTOMERS_BOUND,
  type CallOutcome,
  type FetchLike,
  type FetchResponse,
  type PortalCallEvent,
  type PortalOrchestrator,
  type PortalOrchestratorOptions,
} from "./portal-orchestrator.js";
export type { CustomersBound } from "./customers-json/scanner.js";
export { isHostAllowed, portalUrl, type PortalMethod } from "./url.js";
export { decodeCustomers, Enterprise, round6, toCustomer } from "./wire.js";
