export {
  createPortalOrchestrator,
  defaultFetch,
  DEFAULT_CUSTOMERS_BOUND,
  type FetchLike,
  type PortalCallEvent,
  type PortalOrchestrator,
  type PortalOrchestratorOptions,
} from "./portal-orchestrator.js";
export type { CustomersBound } from "./customers-json/scanner.js";
export type { PortalMethod } from "./url.js";
export { decodeCustomers, Enterprise, toCustomer } from "./wire.js";
