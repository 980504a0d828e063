import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { reportFigures } from "@sdwan-connections/bench-kit";
import { startPostgres, type StartedPostgres } from "@sdwan-connections/storage-postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeBurst, keyCheckBurst, loginBurst } from "./bursts.js";
import { ADMIN, anAddBody, BASE, client, makeDataDir, startWiredService } from "./harness.js";
import { runMain } from "./main-process.js";

const MAX_FAILURES = 5;
const BURST = 300;
const TRIALS = 12;
const AT_ONCE = 3;

let postgres: StartedPostgres;
const dirs: string[] = [];
const masterKey = randomBytes(32).toString("base64");
const burstLines: string[] = [];

beforeAll(async () => {
  postgres = await startPostgres({ label: "http-express-pressure" });
});
afterAll(async () => {
  // Only a full run's figures are written: a filtered run would leave the section short.
  if (burstLines.length === 2) {
    await reportFigures(
      "reliability:throttle-burst-postgres",
      `Last run, two instances on one PostgreSQL database, SDWAN_LOGIN_MAX_FAILURES=${MAX_FAILURES}:\n\n${burstLines.map((line) => `- ${line}`).join("\n")}`,
    );
  }
  await postgres?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** One instance of the service on the database `databaseUrl`, as SDWAN_STORAGE=postgres wires it. */
const instance = (databaseUrl: string, env: Record<string, string> = {}) =>
  startWiredService({
    SDWAN_STORAGE: "postgres",
    SDWAN_DATABASE_URL: databaseUrl,
    SDWAN_MASTER_KEY: masterKey,
    ...env,
  });

describe("two instances on one PostgreSQL database, a burst from one client", () => {
  const env = { SDWAN_LOGIN_MAX_FAILURES: String(MAX_FAILURES), SDWAN_LOGIN_WINDOW_MS: "600000" };

  it(`checks at most SDWAN_LOGIN_MAX_FAILURES of ${BURST} concurrent wrong logins spread over both`, async () => {
    const databaseUrl = await postgres.database("login_burst");
    const [a, b] = [await instance(databaseUrl, env), await instance(databaseUrl, env)];
    try {
      const outcome = await loginBurst([a.url, b.url], BURST);
      burstLines.push(describeBurst("wrong logins", BURST, outcome));
      expect(outcome.checks).toBe(MAX_FAILURES);
      expect(outcome.statuses).toEqual({ 401: MAX_FAILURES, 429: BURST - MAX_FAILURES });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it(`answers at most SDWAN_LOGIN_MAX_FAILURES of ${BURST} concurrent key checks that do not match, spread over both`, async () => {
    const databaseUrl = await postgres.database("key_check_burst");
    const [a, b] = [await instance(databaseUrl, env), await instance(databaseUrl, env)];
    try {
      expect((await client(a.url)("POST", `${BASE}/connections`, { body: anAddBody() })).status).toBe(200);
      const outcome = await keyCheckBurst([a.url, b.url], BURST, "lab");
      burstLines.push(describeBurst("key checks", BURST, outcome));
      expect(outcome.checks).toBe(MAX_FAILURES);
      expect(outcome.statuses).toEqual({ 200: MAX_FAILURES, 429: BURST - MAX_FAILURES });
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe("instances started together on a fresh database", { timeout: 180_000 }, () => {
  it(`all start, ${TRIALS} trials of ${AT_ONCE} at once: every schema object comes from the migrations, under their lock`, async () => {
    const failures: string[] = [];
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const databaseUrl = await postgres.database(`starts_${trial}`);
      const started = await Promise.allSettled(Array.from({ length: AT_ONCE }, () => instance(databaseUrl)));
      for (const outcome of started) if (outcome.status === "rejected") failures.push(String(outcome.reason));
      await Promise.all(started.map((outcome) => (outcome.status === "fulfilled" ? outcome.value.close() : undefined)));
    }
    await reportFigures(
      "reliability:simultaneous-starts",
      `Last run: ${TRIALS} trials of ${AT_ONCE} instances started at once, each trial on a fresh database: ${TRIALS * AT_ONCE - failures.length} of ${TRIALS * AT_ONCE} started, ${failures.length} failed.`,
    );
    expect(failures).toEqual([]);
  });

  it("a start that fails is one line naming the cause and exit code 2, no stack trace", async () => {
    const dir = await makeDataDir();
    dirs.push(dir);
    const missing = new URL(postgres.connectionString);
    missing.pathname = "/no_such_database";
    const run = runMain({
      SDWAN_DATA_DIR: dir,
      SDWAN_STORAGE: "postgres",
      SDWAN_DATABASE_URL: missing.toString(),
      SDWAN_MASTER_KEY: masterKey,
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
    });
    expect(await run.exited).toBe(2);
    expect(run.err()).toMatch(/^sdwan-connections: SDWAN_DATABASE_URL: [^\n]*does not exist[^\n]*\n$/);
    expect(run.err()).not.toContain(postgres.password);
  });
});
