import type { Orchestrator } from "../ports/orchestrator.js";

// `inner` with some calls replaced by `overrides`, every other one forwarded: a new call of the port is forwarded here.
export const decorateOrchestrator = (inner: Orchestrator, overrides: Partial<Orchestrator>): Orchestrator => ({
  startDeadline: () => inner.startDeadline(),
  admits: (orchestratorUrl) => inner.admits(orchestratorUrl),
  identify: (target, deadline) => inner.identify(target, deadline),
  listPartnerCustomers: (target, partnerId, deadline) => inner.listPartnerCustomers(target, partnerId, deadline),
  listApiTokens: (target, identity, deadline) => inner.listApiTokens(target, identity, deadline),
  ...overrides,
});
