import { describeError } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import { ContainerModule } from "inversify";
import type { Config } from "../config.js";
import { orFail } from "../startup-error.js";
import { TOKENS } from "../tokens.js";
import { loadKeyring } from "./master-key.js";

/**
 * PostgreSQL (SDWAN_STORAGE=postgres): a pool on SDWAN_DATABASE_URL, the
 * schema migrated, the master key checked against the stored rows, and
 * changes carried between instances with LISTEN/NOTIFY (so every
 * instance's customers cache drops an updated or deleted connection).
 * Closed (pool ended, listener released) when unbound.
 */
export const postgresStorageModule = (config: Config, databaseUrl: string) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Storage)
      .toDynamicValue(async (context) => {
        const logger = context.get(TOKENS.Logger);
        const keyring = orFail(await loadKeyring(config)());
        // Loaded only when PostgreSQL is the store: the CLI on the embedded store starts without pg.
        const { openPostgresStorage } = await import("@sdwan-connections/storage-postgres");
        const opened = await openPostgresStorage({
          databaseUrl,
          keyring,
          auditRetention: config.auditRetention,
          failureWindowMs: config.loginWindowMs,
          onError: (line) => logger.warn({ problem: line }, "postgres"),
        })();
        // Never the URL itself in the message: it may hold a password.
        return orFail(E.mapLeft((error: Parameters<typeof describeError>[0]) => `SDWAN_DATABASE_URL: ${describeError(error)}`)(opened));
      })
      .inSingletonScope()
      .onDeactivation((storage) => storage.close());
  });
