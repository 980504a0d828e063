import { ContainerModule } from "inversify";
import type { Config } from "../config.js";
import { closeOrchestrator, offlineOrchestrator, openPortalOrchestrator } from "../parts/orchestrator.js";
import { orFail } from "../startup-error.js";
import { TOKENS } from "../tokens.js";

/** The orchestrator-portal HTTP client (see `openPortalOrchestrator`); its keep-alive sockets are freed when unbound. */
export const portalOrchestratorModule = (config: Config) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Orchestrator)
      .toDynamicValue(async (context) => orFail(await openPortalOrchestrator(config, context.get(TOKENS.Logger))()))
      .inSingletonScope()
      .onDeactivation(closeOrchestrator);
  });

/** The `offlineOrchestrator`, for a driver's work that never asks an orchestrator. */
export const offlineOrchestratorModule = () =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Orchestrator).toConstantValue(offlineOrchestrator);
  });
