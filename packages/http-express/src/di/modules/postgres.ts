import { describeError } from "@sdwan-connections/core";
import {
  createPostgresConnectionChanges,
  createPostgresConnectionRepository,
  describeDatabaseError,
  migrate,
  verifyMasterKeys,
} from "@sdwan-connections/storage-postgres";
import { ContainerModule } from "inversify";
import pg from "pg";
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
    const keyring = await loadKeyring(config);

    const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, connectionTimeoutMillis: 5_000, query_timeout: 10_000 });
    // An idle client dying (database restart) must not crash the process; the pool opens a new one.
    let warn: (line: string) => void = () => undefined;
    pool.on("error", () => warn("an idle PostgreSQL connection was lost"));

    const fail = async (line: string): Promise<never> => {
      await pool.end().catch(() => undefined);
      throw new StartupError(`SDWAN_DATABASE_URL: ${line}`); // never the URL itself: it may hold a password
    };
    const migrated = await migrate(pool)().catch((error: unknown) => fail(describeDatabaseError(error)));
    if (migrated._tag === "Left") await fail(describeError(migrated.left));
    const keysFit = await verifyMasterKeys(pool, keyring)();
    if (keysFit._tag === "Left") await fail(describeError(keysFit.left));
    const changes = await createPostgresConnectionChanges({
      pool,
      listener: { connectionString: databaseUrl },
      onError: (line) => warn(line),
    })();
    if (changes._tag === "Left") return fail(describeError(changes.left));

    bind(TOKENS.Storage)
      .toDynamicValue((context) => {
        const logger = context.get(TOKENS.Logger);
        warn = (line) => logger.warn({ problem: line }, "postgres");
        return {
          repository: createPostgresConnectionRepository({ pool, keyring }),
          changes: changes.right,
          close: async () => {
            await changes.right.close();
            await pool.end();
          },
        };
      })
      .inSingletonScope();
  });
