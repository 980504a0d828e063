import { createInMemoryFailureCounter, createInProcessConnectionChanges } from "@sdwan-connections/core";
import { createLowdbAuditLog, createLowdbConnectionRepository, createLowdbHealthLedger, describeConnectionsFileError, openConnectionsFile } from "@sdwan-connections/storage-lowdb";
import * as E from "fp-ts/lib/Either.js";
import { ContainerModule } from "inversify";
import type { Config } from "../config.js";
import { orFail } from "../startup-error.js";
import { TOKENS } from "../tokens.js";
import { loadKeyring, masterKeyFingerprints } from "./master-key.js";

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
        const keyring = orFail(await loadKeyring(config));
        const audit = createLowdbAuditLog({ dataDir: config.dataDir, retention: config.auditRetention });
        const health = createLowdbHealthLedger({ dataDir: config.dataDir });
        // The file appends its changes' audit entries through the trail's journal, in each write's group commit.
        const opened = await openConnectionsFile({ dataDir: config.dataDir, keyring, audit: audit.journal })();
        if (E.isLeft(opened)) await Promise.all([audit.close(), health.close()]);
        const file = orFail(E.mapLeft(describeConnectionsFileError)(opened));
        return {
          repository: createLowdbConnectionRepository(file),
          changes: createInProcessConnectionChanges(),
          fingerprints: masterKeyFingerprints(keyring),
          audit,
          health,
          // One service process per data directory: its failure counts live in its memory (forgotten at a restart).
          failures: createInMemoryFailureCounter({ windowMs: config.loginWindowMs }),
          close: async () => {
            await file.close();
            await audit.close();
            await health.close();
          },
        };
      })
      .inSingletonScope()
      .onDeactivation((storage) => storage.close());
  });
