import { describeError } from "@sdwan-connections/core";
import { openPostgresStorage } from "@sdwan-connections/storage-postgres";
import { ContainerModule } from "inversify";
import type { Config } from "../../config.js";
import { TOKENS } from "../tokens.js";
import { loadKeyring } from "./master-key.js";
import { StartupError } from "./startup-error.js";

/**
 * PostgreSQL (SDWAN_STORAGE=postgres): a pool on SDWAN_DATABASE_URL, the
 * schema migrated, the master key checked against the stored rows, and
 * changes carried between instances with LISTEN/NOTIFY (so every
 * instance's customers cache drops an updated or deleted connection).
 */
export const postgresStorageModule = (config: Config) =>
  new ContainerModule(async ({ bind }) => {
    const databaseUrl = config.databaseUrl;
    if (databaseUrl === undefined) throw new StartupError("SDWAN_DATABASE_URL: must be set when SDWAN_STORAGE=postgres");
    // Lost connections and failed notifications are logged once the logger is bound.
    let warn: (line: string) => void = () => undefined;
    const opened = await openPostgresStorage({ databaseUrl, keyring: await loadKeyring(config), onError: (line) => warn(line) })();
    // Never the URL itself in the message: it may hold a password.
    if (opened._tag === "Left") throw new StartupError(`SDWAN_DATABASE_URL: ${describeError(opened.left)}`);

    bind(TOKENS.Storage)
      .toDynamicValue((context) => {
        const logger = context.get(TOKENS.Logger);
        warn = (line) => logger.warn({ problem: line }, "postgres");
        return opened.right;
      })
      .inSingletonScope();
  });
