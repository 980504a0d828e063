import { createConnectionService, describeError } from "@sdwan-connections/core";
import { ContainerModule } from "inversify";
import { TOKENS } from "../tokens.js";

/** The use cases over whichever storage and orchestrator modules were loaded; orchestrator calls are measured. */
export const coreModule = () =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.ConnectionService)
      .toDynamicValue(async (context) => {
        const config = context.get(TOKENS.Config);
        const metrics = context.get(TOKENS.Metrics);
        const storage = await context.getAsync(TOKENS.Storage);
        return createConnectionService({
          repository: storage.repository,
          changes: storage.changes,
          fingerprints: storage.fingerprints,
          audit: storage.audit,
          onAuditFailure: (error) => context.get(TOKENS.Logger).error({ problem: describeError(error) }, "audit entry not recorded"),
          orchestrator: metrics.instrumentOrchestrator(await context.getAsync(TOKENS.Orchestrator)),
          clock: context.get(TOKENS.Clock),
          customersCacheTtlMs: config.customersCacheTtlMs,
          onCustomersCacheLookup: metrics.onCustomersCacheLookup,
        });
      })
      .inSingletonScope()
      .onDeactivation((service) => service.dispose());
  });
