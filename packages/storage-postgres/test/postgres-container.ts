import { randomBytes } from "node:crypto";
import pg from "pg";
import { createKeyring, masterKey, type Keyring } from "@sdwan-connections/secrets";

export { startPostgres, type StartedPostgres } from "../testing/index.js";

/** A pool like the service builds, small and quick to give up. */
export const aPool = (connectionString: string, max = 10): pg.Pool => {
  const pool = new pg.Pool({ connectionString, max, connectionTimeoutMillis: 5_000 });
  pool.on("error", () => undefined); // an idle client dying when the container stops must not crash the run
  return pool;
};

/** A keyring with a fresh random master key. */
export const aKeyring = (): Keyring => createKeyring({ current: masterKey(randomBytes(32)) });
