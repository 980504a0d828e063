import { createPortalOrchestrator } from "@sdwan-connections/orchestrator-portal";
import { ContainerModule } from "inversify";
import type { Config } from "../../config.js";
import { TOKENS } from "../tokens.js";

/** The orchestrator-portal HTTP client, with the configured timeout and host allowlist; closed on shutdown. */
export const portalOrchestratorModule = (config: Config) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Orchestrator)
      .toConstantValue(
        createPortalOrchestrator({ timeoutMs: config.orchestratorTimeoutMs, allowedHosts: config.orchestratorAllowedHosts }),
      )
      .onDeactivation((orchestrator) => {
        if ("close" in orchestrator && typeof orchestrator.close === "function") orchestrator.close();
      });
  });
