import { describeError } from "@sdwan-connections/core";
import { openLowdbStorage } from "@sdwan-connections/storage-lowdb";
import * as E from "fp-ts/lib/Either.js";
import { ContainerModule } from "inversify";
import type { Config } from "../config.js";
import { orFail } from "../startup-error.js";
import { TOKENS } from "../tokens.js";
import { loadKeyring } from "./master-key.js";

/**
 * The embedded store (SDWAN_STORAGE=lowdb): `connections.json` in the data
 * directory, apiKeys sealed with the master key, the audit trail and the health states (`health.json`, shared
 * with every process over the directory, a CLI `validate` included) beside it. Opened when first resolved,
 * closed (pending writes flushed, lock released) when unbound.
 */
export const lowdbStorageModule = (config: Config) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Storage)
      .toDynamicValue(async () => {
        const keyring = orFail(await loadKeyring(config)());
        const opened = await openLowdbStorage({
          dataDir: config.dataDir,
          keyring,
          auditRetention: config.auditRetention,
          failureWindowMs: config.loginWindowMs,
        })();
        return orFail(E.mapLeft(describeError)(opened));
      })
      .inSingletonScope()
      .onDeactivation((storage) => storage.close());
  });
