import { randomBytes } from "node:crypto";
import { startPostgres, type StartedPostgres } from "@sdwan-connections/storage-postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../src/service.js";
import { ADMIN, anAddBody, BASE, client, startWiredService, TEST_KEYS, testOrchestrator } from "./harness.js";

let postgres: StartedPostgres;
let databaseUrl: string;
const masterKey = randomBytes(32).toString("base64");

beforeAll(async () => {
  postgres = await startPostgres({ label: "http-express" });
  databaseUrl = postgres.connectionString;
});
afterAll(async () => {
  await postgres?.stop();
});

/** One instance of the service on PostgreSQL, as SDWAN_STORAGE=postgres wires it (orchestrator: core's fake, or the one given). */
const instance = (env: Record<string, string> = {}, orchestrator = testOrchestrator()): Promise<RunningService> =>
  startWiredService({ SDWAN_STORAGE: "postgres", SDWAN_DATABASE_URL: databaseUrl, SDWAN_MASTER_KEY: masterKey, ...env }, orchestrator);

describe("SDWAN_STORAGE=postgres", () => {
  it("two instances: one of two writers racing with one If-Match wins; the key check, fingerprint, audit and health are shared", async () => {
    const orchestrator = testOrchestrator();
    const start = () => instance({ SDWAN_HEALTH_INTERVAL_S: "3600" }, orchestrator);
    const a = await start();
    const b = await start();
    try {
      const [callA, callB] = [client(a.url), client(b.url)];
      expect((await callA("POST", `${BASE}/connections`, { body: anAddBody({ alias: "raced" }) })).status).toBe(200);
      const tag = (await callB("GET", `${BASE}/connections/raced`)).headers.get("etag") ?? "";
      const [first, second] = await Promise.all([
        callA("PUT", `${BASE}/connections/raced`, { body: { orchestratorUrl: "https://a.example.net" }, headers: { "if-match": tag } }),
        callB("PUT", `${BASE}/connections/raced`, { body: { orchestratorUrl: "https://b.example.net" }, headers: { "if-match": tag } }),
      ]);
      expect([first.status, second.status].sort()).toEqual([200, 412]);

      const fingerprint = (call: typeof callA) => call("GET", `${BASE}/connections/raced?verbose=true`).then((reply) => reply.json<{ apiKeyFingerprint: string }>().apiKeyFingerprint);
      expect(await fingerprint(callA)).toBe(await fingerprint(callB));
      expect((await callB("POST", `${BASE}/connections/raced/key-check`, { body: { apiKey: TEST_KEYS.partner } })).json()).toEqual({ matches: true });

      const audit = (await callB("GET", `${BASE}/audit?alias=raced`)).json<{ entries: { action: string; outcome: string }[] }>();
      expect(audit.entries.map(({ action, outcome }) => `${action} ${outcome}`).sort()).toEqual(["add succeeded", "update failed", "update succeeded"]);

      // Both instances run a round in the same interval: the connection is checked once, and both answer its state.
      orchestrator.calls.identify = 0;
      await Promise.all([a.composition.service.healthMonitor?.round(), b.composition.service.healthMonitor?.round()]);
      expect(orchestrator.calls.identify).toBe(1);
      for (const call of [callA, callB]) {
        const health = (await call("GET", `${BASE}/health/connections`)).json<{ connections: { alias: string; state: string }[] }>();
        expect(health.connections.filter((entry) => entry.alias === "raced")).toMatchObject([{ state: "valid" }]);
      }
    } finally {
      await client(a.url)("DELETE", `${BASE}/connections/raced`); // the next tests start from an empty table
      await a.close();
      await b.close();
    }
  });

  it("instances share one count of failed logins (the store's failure counter)", async () => {
    const env = { SDWAN_LOGIN_MAX_FAILURES: "4", SDWAN_LOGIN_WINDOW_MS: "60000" };
    const a = await instance(env);
    const b = await instance(env);
    try {
      const wrong = { name: ADMIN.name, password: "not-the-password" };
      for (const call of [client(a.url), client(a.url), client(b.url), client(b.url)]) expect((await call("GET", `${BASE}/connections`, { user: wrong })).status).toBe(401);
      // A saw two failures and B two: together, four. Both refuse the next attempt.
      for (const url of [a.url, b.url]) {
        const refused = await client(url)("GET", `${BASE}/connections`, { user: wrong });
        expect(refused.status, url).toBe(429);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(50);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

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

      const rows = JSON.stringify(await postgres.rows("select * from connections"));
      expect(rows).toContain("Shared");
      expect(rows).not.toContain(TEST_KEYS.customer);
      expect(rows).not.toContain(TEST_KEYS.partner);
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
    expect(error?.message).not.toContain(postgres.password);
  });
});
