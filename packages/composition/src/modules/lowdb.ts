import { createInProcessConnectionChanges } from "@sdwan-connections/core";
import { createLowdbConnectionRepository, describeConnectionsFileError, openConnectionsFile } from "@sdwan-connections/storage-lowdb";
import * as E from "fp-ts/lib/Either.js";
import { ContainerModule } from "inversify";
import type { Config } from "../config.js";
import { orFail } from "../startup-error.js";
import { TOKENS } from "../tokens.js";
import { loadKeyring, masterKeyFingerprints } from "./master-key.js";

/**
 * The embedded store (SDWAN_STORAGE=lowdb): `connections.json` in the data
 * directory, apiKeys sealed with the master key. Opened when first resolved,
 * closed (pending writes flushed, lock released) when unbound.
 */
export const lowdbStorageModule = (config: Config) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Storage)
      .toDynamicValue(async () => {
        const keyring = orFail(await loadKeyring(config));
        const file = orFail(E.mapLeft(describeConnectionsFileError)(await openConnectionsFile({ dataDir: config.dataDir, keyring })()));
        return {
          repository: createLowdbConnectionRepository(file),
          changes: createInProcessConnectionChanges(),
          fingerprints: masterKeyFingerprints(keyring),
          close: () => file.close(),
        };
      })
      .inSingletonScope()
      .onDeactivation((storage) => storage.close());
  });
