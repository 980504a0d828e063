import { createInProcessConnectionChanges } from "@sdwan-connections/core";
import { createKeyring, describeMasterKeyError, loadMasterKeys } from "@sdwan-connections/secrets";
import { createLowdbConnectionRepository, describeConnectionsFileError, openConnectionsFile } from "@sdwan-connections/storage-lowdb";
import { ContainerModule } from "inversify";
import type { Config } from "../../config.js";
import { TOKENS } from "../tokens.js";
import { StartupError } from "./startup-error.js";

/**
 * The embedded store: `connections.json` in the data directory, apiKeys
 * sealed with the master key (SDWAN_MASTER_KEY, or one generated into the
 * data directory on first start).
 */
export const lowdbStorageModule = (config: Config) =>
  new ContainerModule(async ({ bind }) => {
    const keys = await loadMasterKeys({
      env: {
        SDWAN_MASTER_KEY: config.masterKey?.toString("base64"),
        SDWAN_MASTER_KEY_PREVIOUS: config.previousMasterKeys,
      },
      dataDir: config.dataDir,
    });
    if (keys._tag === "Left") throw new StartupError(describeMasterKeyError(keys.left));
    const file = await openConnectionsFile({
      dataDir: config.dataDir,
      keyring: createKeyring({ current: keys.right.current, previous: keys.right.previous }),
    })();
    if (file._tag === "Left") throw new StartupError(describeConnectionsFileError(file.left));
    bind(TOKENS.Storage).toConstantValue({
      repository: createLowdbConnectionRepository(file.right),
      changes: createInProcessConnectionChanges(),
      close: () => file.right.close(),
    });
  });
