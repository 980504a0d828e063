import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import pg from "pg";
import { GenericContainer, Wait, type StartedTestContainer } from "testcontainers";

/**
 * The image: `.ci/containers.sh up` builds `sdwan/postgres:local` on machines
 * without a registry and exports SDWAN_TEST_POSTGRES_IMAGE; elsewhere the
 * official image. Both honour PGPORT, which lets us run in host network mode
 * (the CI daemon has no bridge) on a port we picked.
 */
const IMAGE = process.env["SDWAN_TEST_POSTGRES_IMAGE"] ?? "postgres:16";
// The local image logs readiness once; the official one twice (once for its init server).
const READY_LOG_COUNT = Number(
  process.env["SDWAN_TEST_POSTGRES_READY_LOG_COUNT"] ?? (IMAGE.startsWith("sdwan/") ? 1 : 2),
);
const USER = "sdwan";

export interface StartedPostgres {
  /** URL of the `sdwan` database (password included: tests only). */
  readonly connectionString: string;
  readonly password: string;
  /** URL of another database on the same server, created empty on first use. */
  database(name: string): Promise<string>;
  /** Runs one statement on the `sdwan` database with a client of its own and answers its rows (so a driver's tests need no `pg`). */
  rows(sql: string): Promise<readonly Record<string, unknown>[]>;
  /** Restarts the server (every connection lost, data kept, same port); answers once it accepts connections again. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** A TCP port free on 127.0.0.1 right now (host-network containers each need their own). */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });

/**
 * Starts PostgreSQL in a container for one test file (storage-postgres's own
 * tests, http-express's and the end-to-end suite's). Fails (never skips) with
 * one line saying what is missing when no container runtime answers.
 */
export const startPostgres = async ({ label }: { readonly label: string }): Promise<StartedPostgres> => {
  const port = await freePort();
  const password = `pg-test-${randomBytes(9).toString("base64url")}`;
  let container: StartedTestContainer;
  try {
    container = await new GenericContainer(IMAGE)
      .withNetworkMode("host")
      .withEnvironment({ POSTGRES_USER: USER, POSTGRES_PASSWORD: password, POSTGRES_DB: USER, PGPORT: String(port) })
      .withCommand(["postgres", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", `port=${port}`])
      // Ryuk is off on the air-gapped CI daemon: let the daemon itself remove a container whose test run died.
      .withAutoRemove(true)
      .withLabels({ "sdwan.test": label })
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, READY_LOG_COUNT))
      .withStartupTimeout(120_000)
      .start();
  } catch (error) {
    const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new Error(
      `PostgreSQL test container (${IMAGE}) could not start: ${why}. These tests need Docker: ` +
        "run `.ci/containers.sh up && set -a && . .ci/containers.env && set +a` first.",
    );
  }
  const url = (database: string) => `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  const created = new Set<string>();
  const rows = async (sql: string) => {
    const admin = new pg.Client({ connectionString: url(USER) });
    await admin.connect();
    try {
      return (await admin.query<Record<string, unknown>>(sql)).rows;
    } finally {
      await admin.end();
    }
  };
  return {
    connectionString: url(USER),
    password,
    database: async (name) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new RangeError("test database names are plain identifiers");
      if (!created.has(name)) {
        await rows(`create database "${name}"`);
        created.add(name);
      }
      return url(name);
    },
    rows,
    restart: async () => {
      await container.restart({ timeout: 2_000 });
      for (let tries = 0; ; tries += 1) {
        const ready = await rows("select 1").then(
          () => true,
          () => false,
        );
        if (ready) return;
        if (tries >= 600) throw new Error("PostgreSQL did not come back within a minute of its restart");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    stop: async () => {
      await container.stop({ timeout: 2_000 });
    },
  };
};
