import { createConnectionService } from "@sdwan-connections/core";
import { ContainerModule } from "inversify";
import { TOKENS } from "../tokens.js";

/** The use cases over whichever storage and orchestrator modules were loaded; orchestrator calls are measured. */
export const coreModule = () =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.ConnectionService)
      .toDynamicValue((context) => {
        const config = context.get(TOKENS.Config);
        const metrics = context.get(TOKENS.Metrics);
        const storage = context.get(TOKENS.Storage);
        return createConnectionService({
          repository: storage.repository,
          changes: storage.changes,
          orchestrator: metrics.instrumentOrchestrator(context.get(TOKENS.Orchestrator)),
          clock: context.get(TOKENS.Clock),
          customersCacheTtlMs: config.customersCacheTtlMs,
          onCustomersCacheLookup: metrics.onCustomersCacheLookup,
        });
      })
      .inSingletonScope();
  });
