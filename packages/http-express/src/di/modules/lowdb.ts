import { createInProcessConnectionChanges } from "@sdwan-connections/core";
import { createLowdbConnectionRepository, describeConnectionsFileError, openConnectionsFile } from "@sdwan-connections/storage-lowdb";
import { ContainerModule } from "inversify";
import type { Config } from "../../config.js";
import { TOKENS } from "../tokens.js";
import { loadKeyring } from "./master-key.js";
import { StartupError } from "./startup-error.js";

/**
 * The embedded store: `connections.json` in the data directory, apiKeys
 * sealed with the master key (SDWAN_MASTER_KEY, or one generated into the
 * data directory on first start).
 */
export const lowdbStorageModule = (config: Config) =>
  new ContainerModule(async ({ bind }) => {
    const keyring = await loadKeyring(config);
    const file = await openConnectionsFile({
      dataDir: config.dataDir,
      keyring,
    })();
    if (file._tag === "Left") throw new StartupError(describeConnectionsFileError(file.left));
    bind(TOKENS.Storage).toConstantValue({
      repository: createLowdbConnectionRepository(file.right),
      changes: createInProcessConnectionChanges(),
      close: () => file.right.close(),
    });
  });
