import type { ContainerModule } from "inversify";
import type { Config } from "../../config.js";
import { StartupError } from "./auth.js";

/** The storage adapter module `SDWAN_STORAGE` names. */
export const storageModuleFor = async (config: Config): Promise<ContainerModule> => {
  switch (config.storage) {
    case "lowdb":
      throw new StartupError("SDWAN_STORAGE: lowdb is not available in this build yet");
    case "postgres":
      throw new StartupError("SDWAN_STORAGE: postgres is not available in this build (package @sdwan-connections/storage-postgres is missing)");
  }
};

/** The orchestrator-portal HTTP client. */
export const orchestratorModuleFor = async (_config: Config): Promise<ContainerModule> => {
  throw new StartupError("the orchestrator-portal client is not available in this build yet");
};
