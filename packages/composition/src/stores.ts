import { access } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describeError, type DomainError, type Storage } from "@sdwan-connections/core";
import { createKeyring, describeMasterKeyError, loadMasterKeys, type Keyring } from "@sdwan-connections/secrets";
import { CONNECTIONS_FILE, openLowdbStorage } from "@sdwan-connections/storage-lowdb";
import * as TE from "fp-ts/lib/TaskEither.js";
import { pipe } from "fp-ts/lib/function.js";
import type { Config } from "./config.js";
import type { LogSink } from "./log-sink.js";
import { configurationFailure, type StartFailure } from "./startup-error.js";

/**
 * Where the store is, by one rule for the service and the CLI: PostgreSQL at SDWAN_DATABASE_URL, or the
 * embedded store in SDWAN_DATA_DIR, which unless set is `./data` in the working directory (so it depends on
 * where you stand: say so whenever it matters). `dataDir` is absolute; `exists` tells whether the embedded
 * store is there yet (the service's first start, or a CLI write, creates it; reads never do). `title` is
 * how `cli config` names the store.
 */
export type StoreLocation = { readonly title: string } & (
  | { readonly kind: "postgres" }
  | { readonly kind: "lowdb"; readonly dataDir: string; readonly fromDefault: boolean; readonly exists: boolean }
);

/** How the operator named the store: the variable the PostgreSQL URL was read from (a CLI context names its own); and whether the opener only reads. */
export interface StoreNames {
  readonly databaseUrlVariable: string;
  /** Whether the opener only reads (see openLowdbStorage's `readsOnly`). */
  readonly readsOnly?: boolean;
}

/** A failure of the store itself (out of reach: exit 7 in the CLI), or of what it was given (the configuration: exit 2). */
const storeFailure =
  (kind: StartFailure["kind"], prefix = "") =>
  (error: DomainError): StartFailure => ({ kind, message: `${prefix}${describeError(error)}` });

/** A store technology: where it is and how it opens, from the configuration and the keyring sealing apiKeys. */
interface Store {
  readonly locate: (config: Config) => Promise<StoreLocation>;
  readonly open: (
    config: Config,
    keyring: Keyring,
    logger: LogSink,
    names: StoreNames,
  ) => TE.TaskEither<StartFailure, Storage>;
}

/**
 * Every store SDWAN_STORAGE may name, keyed by the configuration's union: a store added to the union does not
 * compile until it is here, and then the service, the CLI and `cli config` all know it.
 */
const STORES: Record<Config["storage"], Store> = {
  /**
   * `connections.json` in the data directory, apiKeys sealed with the master key, the audit trail and the
   * health states (`health.json`, shared with every process over the directory, a CLI `validate` included) beside it.
   */
  lowdb: {
    locate: async (config) => {
      const dataDir = resolve(config.dataDir);
      const exists = await access(join(dataDir, CONNECTIONS_FILE)).then(
        () => true,
        () => false,
      );
      return { title: "embedded (lowdb)", kind: "lowdb", dataDir, fromDefault: config.dataDirFromDefault, exists };
    },
    open: (config, keyring, logger, { readsOnly }) =>
      TE.mapLeft(storeFailure("configuration"))(
        openLowdbStorage({
          dataDir: config.dataDir,
          readsOnly: readsOnly === true,
          keyring,
          auditRetention: config.auditRetention,
          failureWindowMs: config.loginWindowMs,
          onWarning: (line) => logger.warn({ problem: line }, "lowdb"),
        }),
      ),
  },
  /**
   * A pool on SDWAN_DATABASE_URL, the schema migrated, the master key checked against the stored rows, and
   * changes carried between instances with LISTEN/NOTIFY (so every instance's customers cache drops an updated
   * or deleted connection).
   */
  postgres: {
    locate: async () => ({ title: "PostgreSQL", kind: "postgres" }),
    open:
      (config, keyring, logger, { databaseUrlVariable }) =>
      async () => {
        // Loaded only when PostgreSQL is the store: the CLI on the embedded store starts without pg.
        const { openPostgresStorage, reachPostgres } = await import("@sdwan-connections/storage-postgres");
        const databaseUrl = config.databaseUrl ?? ""; // loadConfig refuses SDWAN_STORAGE=postgres without it
        // Never the URL itself in the message (it may hold a password): the variable it came from.
        const named = `${databaseUrlVariable}: `;
        return pipe(
          // Reached first: out of reach or refused is the store's failure; after that, what it was given.
          TE.mapLeft(storeFailure("storage", named))(reachPostgres(databaseUrl)),
          TE.flatMap(() =>
            TE.mapLeft(storeFailure("configuration", named))(
              openPostgresStorage({
                databaseUrl,
                keyring,
                auditRetention: config.auditRetention,
                failureWindowMs: config.loginWindowMs,
                onError: (line) => logger.warn({ problem: line }, "postgres"),
              }),
            ),
          ),
        )();
      },
  },
};

/** Where the store SDWAN_STORAGE names is. */
export const locateStore = (config: Config): Promise<StoreLocation> => STORES[config.storage].locate(config);

/** The store SDWAN_STORAGE names, opened with the keyring of SDWAN_MASTER_KEY (+ _PREVIOUS), or of the key generated into the data directory. */
export const openStore = (
  config: Config,
  logger: LogSink,
  names: StoreNames = { databaseUrlVariable: "SDWAN_DATABASE_URL" },
): TE.TaskEither<StartFailure, Storage> =>
  pipe(
    TE.bimap(
      (error: Parameters<typeof describeMasterKeyError>[0]) => configurationFailure(describeMasterKeyError(error)),
      createKeyring,
    )(loadMasterKeys({ current: config.masterKey, previous: config.previousMasterKeys, dataDir: config.dataDir })),
    TE.flatMap((keyring) => STORES[config.storage].open(config, keyring, logger, names)),
  );
