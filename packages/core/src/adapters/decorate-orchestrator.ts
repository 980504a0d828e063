import type { Orchestrator } from "../ports/orchestrator.js";

// `inner` with some calls replaced by `overrides`, every other one forwarded: a new call of the port is forwarded here.
export const decorateOrchestrator = (inner: Orchestrator, overrides: Partial<Orchestrator>): Orchestrator => ({
  startDeadline: () => inner.startDeadline(),
  admits: (orchestratorUrl) => inner.admits(orchestratorUrl),
  identify: (target, deadline) => inner.identify(target, deadline),
  listPartnerCustomers: (target, partnerId, deadline) => inner.listPartnerCustomers(target, partnerId, deadline),
  listApiTokens: (target, identity, deadline) => inner.listApiTokens(target, identity, deadline),
  refreshApiToken: (target, deadline) => inner.refreshApiToken(target, deadline),
  createApiToken: (target, identity, request, deadline) => inner.createApiToken(target, identity, request, deadline),
  downloadApiToken: (target, identity, id, deadline) => inner.downloadApiToken(target, identity, id, deadline),
  revokeApiToken: (target, identity, id, deadline) => inner.revokeApiToken(target, identity, id, deadline),
  ...overrides,
});
