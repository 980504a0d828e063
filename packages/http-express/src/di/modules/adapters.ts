import type { ContainerModule } from "inversify";
import type { Config } from "../../config.js";
import { lowdbStorageModule } from "./lowdb.js";
import { portalOrchestratorModule } from "./portal.js";
import { postgresStorageModule } from "./postgres.js";

/** The storage adapter module `SDWAN_STORAGE` names. */
export const storageModuleFor = async (config: Config): Promise<ContainerModule> => {
  switch (config.storage) {
    case "lowdb":
      return lowdbStorageModule(config);
    case "postgres":
      return postgresStorageModule(config);
  }
};

/** The orchestrator-portal HTTP client (the only orchestrator adapter for now). */
export const orchestratorModuleFor = (config: Config): Promise<ContainerModule> => portalOrchestratorModule(config);
