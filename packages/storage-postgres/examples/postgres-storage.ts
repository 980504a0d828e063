import * as E from "fp-ts/lib/Either.js";
import pg from "pg";
import { describeError, type ConnectionRepository } from "@sdwan-connections/core";
import type { Keyring } from "@sdwan-connections/secrets";
import {
  createPostgresConnectionChanges,
  createPostgresConnectionRepository,
  migrate,
  verifyMasterKeys,
  type PostgresConnectionChanges,
} from "@sdwan-connections/storage-postgres";

export interface PostgresStorage {
  readonly repository: ConnectionRepository;
  readonly changes: PostgresConnectionChanges;
  close(): Promise<void>;
}

/** What a composition root does with SDWAN_STORAGE=postgres: pool, migrate, repository, changes. */
export async function openPostgresStorage(databaseUrl: string, keyring: Keyring, warn: (line: string) => void): Promise<PostgresStorage> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, connectionTimeoutMillis: 5_000, query_timeout: 10_000 });
  // An idle client dying (database restart) must not crash the process; the pool opens a new one.
  pool.on("error", () => warn("an idle PostgreSQL connection was lost"));

  const migrated = await migrate(pool)();
  const keysFit = E.isRight(migrated) ? await verifyMasterKeys(pool, keyring)() : migrated;
  if (E.isLeft(keysFit)) {
    await pool.end();
    throw new Error(describeError(keysFit.left)); // never contains the URL or its password
  }
  const changes = await createPostgresConnectionChanges({ pool, listener: { connectionString: databaseUrl }, onError: warn })();
  if (E.isLeft(changes)) {
    await pool.end();
    throw new Error(describeError(changes.left));
  }

  return {
    repository: createPostgresConnectionRepository({ pool, keyring }),
    changes: changes.right,
    close: async () => {
      await changes.right.close();
      await pool.end();
    },
  };
}
