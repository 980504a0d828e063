import { describeError, type Storage } from "@sdwan-connections/core";
import { createKeyring, describeMasterKeyError, loadMasterKeys, type Keyring } from "@sdwan-connections/secrets";
import { openLowdbStorage } from "@sdwan-connections/storage-lowdb";
import * as TE from "fp-ts/lib/TaskEither.js";
import { pipe } from "fp-ts/lib/function.js";
import type { Config } from "../config.js";
import type { LogSink } from "../log-sink.js";

/** The keyring sealing apiKeys: SDWAN_MASTER_KEY (+ _PREVIOUS), decoded by the configuration, or the key generated into the data directory. */
const loadKeyring = (config: Config): TE.TaskEither<string, Keyring> =>
  TE.bimap(describeMasterKeyError, createKeyring)(
    loadMasterKeys({ current: config.masterKey, previous: config.previousMasterKeys, dataDir: config.dataDir }),
  );

/**
 * The embedded store (SDWAN_STORAGE=lowdb): `connections.json` in the data directory, apiKeys sealed with
 * the master key, the audit trail and the health states (`health.json`, shared with every process over the
 * directory, a CLI `validate` included) beside it.
 */
export const openLowdbStorageFor = (config: Config, logger?: LogSink): TE.TaskEither<string, Storage> =>
  pipe(
    loadKeyring(config),
    TE.flatMap((keyring) =>
      TE.mapLeft(describeError)(
        openLowdbStorage({
          dataDir: config.dataDir,
          keyring,
          auditRetention: config.auditRetention,
          failureWindowMs: config.loginWindowMs,
          onWarning: (line) => logger?.warn({ problem: line }, "lowdb"),
        }),
      ),
    ),
  );

/**
 * PostgreSQL (SDWAN_STORAGE=postgres): a pool on SDWAN_DATABASE_URL, the schema migrated, the master key
 * checked against the stored rows, and changes carried between instances with LISTEN/NOTIFY (so every
 * instance's customers cache drops an updated or deleted connection).
 */
export const openPostgresStorageFor = (config: Config, databaseUrl: string, logger: LogSink): TE.TaskEither<string, Storage> =>
  pipe(
    loadKeyring(config),
    TE.flatMap((keyring) => async () => {
      // Loaded only when PostgreSQL is the store: the CLI on the embedded store starts without pg.
      const { openPostgresStorage } = await import("@sdwan-connections/storage-postgres");
      const opened = openPostgresStorage({
        databaseUrl,
        keyring,
        auditRetention: config.auditRetention,
        failureWindowMs: config.loginWindowMs,
        onError: (line) => logger.warn({ problem: line }, "postgres"),
      });
      // Never the URL itself in the message: it may hold a password.
      return TE.mapLeft((error: Parameters<typeof describeError>[0]) => `SDWAN_DATABASE_URL: ${describeError(error)}`)(opened)();
    }),
  );

/** The PostgreSQL URL when SDWAN_STORAGE names PostgreSQL, else undefined: the embedded store. */
export const postgresUrlOf = (config: Config): string | undefined => (config.storage === "postgres" ? config.databaseUrl : undefined);

/** The store SDWAN_STORAGE names, opened. */
export const openStorageFor = (config: Config, logger: LogSink): TE.TaskEither<string, Storage> => {
  const databaseUrl = postgresUrlOf(config);
  return databaseUrl === undefined ? openLowdbStorageFor(config, logger) : openPostgresStorageFor(config, databaseUrl, logger);
};
