import type { Orchestrator } from "../ports/orchestrator.js";

/**
 * `inner` with some of its calls replaced by `overrides`, every other one forwarded: the one place that
 * lists the port's calls for a wrapper (the identity memory, the metrics), so a new call is forwarded here.
 */
export const decorateOrchestrator = (inner: Orchestrator, overrides: Partial<Orchestrator>): Orchestrator => ({
  startDeadline: () => inner.startDeadline(),
  admits: (orchestratorUrl) => inner.admits(orchestratorUrl),
  identify: (target, deadline) => inner.identify(target, deadline),
  listPartnerCustomers: (target, partnerId, deadline) => inner.listPartnerCustomers(target, partnerId, deadline),
  ...overrides,
});
