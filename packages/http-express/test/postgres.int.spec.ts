import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { rm } from "node:fs/promises";
import pg from "pg";
import { GenericContainer, Wait, type StartedTestContainer } from "testcontainers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type RunningService } from "../src/service.js";
import { ADMIN, anAddBody, BASE, captureLogs, client, makeDataDir, TEST_KEYS, testConfig, testOrchestrator } from "./harness.js";
import { orchestratorModule } from "../src/di/modules/in-memory.js";

// Same image and runtime conventions as storage-postgres's container tests (see .ci/containers.sh).
const IMAGE = process.env["SDWAN_TEST_POSTGRES_IMAGE"] ?? "postgres:16";
const READY_LOG_COUNT = Number(process.env["SDWAN_TEST_POSTGRES_READY_LOG_COUNT"] ?? (IMAGE.startsWith("sdwan/") ? 1 : 2));

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });

let container: StartedTestContainer;
let databaseUrl: string;
const dirs: string[] = [];
const masterKey = randomBytes(32).toString("base64");

beforeAll(async () => {
  const port = await freePort();
  try {
    container = await new GenericContainer(IMAGE)
      .withNetworkMode("host")
      .withEnvironment({ POSTGRES_USER: "sdwan", POSTGRES_PASSWORD: "pg-http-test-pw", POSTGRES_DB: "sdwan", PGPORT: String(port) })
      .withCommand(["postgres", "-c", "fsync=off", "-c", `port=${port}`])
      .withAutoRemove(true)
      .withLabels({ "sdwan.test": "http-express" })
      .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, READY_LOG_COUNT))
      .withStartupTimeout(120_000)
      .start();
  } catch (error) {
    throw new Error(
      `PostgreSQL test container (${IMAGE}) could not start: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}. ` +
        "These tests need Docker: run `.ci/containers.sh up && set -a && . .ci/containers.env && set +a` first.",
    );
  }
  databaseUrl = `postgres://sdwan:pg-http-test-pw@127.0.0.1:${port}/sdwan`;
});
afterAll(async () => {
  await container?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** One instance of the service on PostgreSQL, as SDWAN_STORAGE=postgres wires it (orchestrator: core's fake). */
const instance = async (env: Record<string, string> = {}): Promise<RunningService> => {
  const dir = await makeDataDir();
  dirs.push(dir);
  return startService(
    testConfig({
      SDWAN_DATA_DIR: dir,
      SDWAN_STORAGE: "postgres",
      SDWAN_DATABASE_URL: databaseUrl,
      SDWAN_MASTER_KEY: masterKey,
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      ...env,
    }),
    { orchestrator: orchestratorModule(testOrchestrator()), logDestination: captureLogs().stream },
  );
};

describe("SDWAN_STORAGE=postgres", () => {
  it("two instances share the connections; keys are sealed in the rows; customers caches follow the other's update", async () => {
    const a = await instance();
    const b = await instance();
    try {
      const callA = client(a.url);
      const callB = client(b.url);
      expect((await callA("POST", `${BASE}/connections`, { body: anAddBody({ alias: "Shared" }) })).status).toBe(200);
      expect((await callB("GET", `${BASE}/connections`)).json()).toEqual([{ alias: "Shared", orchestratorUrl: "https://orchestrator.example.net/" }]);
      expect((await callB("GET", `${BASE}/partner/shared/customers`)).status).toBe(200);
      expect((await callB("POST", `${BASE}/connections`, { body: anAddBody({ alias: "SHARED" }) })).status).toBe(409);

      // Instance A switches the key to a customer's; B must not answer from its cached partner list.
      expect((await callA("PUT", `${BASE}/connections/shared`, { body: { apiKey: TEST_KEYS.customer } })).status).toBe(200);
      await expect.poll(async () => (await callB("GET", `${BASE}/partner/shared/customers`)).status, { timeout: 5_000 }).toBe(409);

      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        const rows = JSON.stringify((await db.query("select * from connections")).rows);
        expect(rows).toContain("Shared");
        expect(rows).not.toContain(TEST_KEYS.customer);
        expect(rows).not.toContain(TEST_KEYS.partner);
      } finally {
        await db.end();
      }
      expect((await callA("GET", "/readyz", { user: null })).status).toBe(200);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a wrong master key stops the start with one line that does not show the URL", async () => {
    const error = await instance({ SDWAN_MASTER_KEY: randomBytes(32).toString("base64") }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.name).toBe("StartupError");
    expect(error?.message).toMatch(/^SDWAN_DATABASE_URL: /);
    expect(error?.message).not.toContain("pg-http-test-pw");
  });
});
