import { randomBytes } from "node:crypto";
import { startPostgres, type StartedPostgres } from "@sdwan-connections/storage-postgres/testing";
import { afterAll, beforeAll } from "vitest";
import type { RunningService } from "../src/service.js";
import { startWiredService } from "./harness.js";

/**
 * In a test file: one PostgreSQL container for its tests (started before them, stopped after), and a way to
 * start instances of the service as `pnpm start` wires them over it, sharing one master key.
 */
export const usePostgresInstances = (label: string) => {
  let postgres: StartedPostgres | undefined;
  const masterKey = randomBytes(32).toString("base64");
  beforeAll(async () => {
    postgres = await startPostgres({ label });
  });
  afterAll(async () => {
    await postgres?.stop();
  });
  const started = (): StartedPostgres => {
    if (postgres === undefined) throw new Error("PostgreSQL is not started yet");
    return postgres;
  };
  return {
    postgres: started,
    instance: (): Promise<RunningService> =>
      startWiredService({
        SDWAN_STORAGE: "postgres",
        SDWAN_DATABASE_URL: started().connectionString,
        SDWAN_MASTER_KEY: masterKey,
      }),
  };
};

/** The options of a call with `Authorization: Bearer <token>` and no Basic credentials. */
export const bearer = (token: string) => ({ user: null, headers: { authorization: `Bearer ${token}` } });
