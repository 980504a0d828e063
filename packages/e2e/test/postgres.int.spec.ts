import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { startPostgres, startService, type StartedPostgres, type StartedService } from "./support/containers.js";
import {
  aMasterKey,
  anAdmin,
  CUSTOMER_KEY,
  PARTNER_1_CUSTOMERS,
  PARTNER_KEY,
  recordingClient,
} from "./support/fixtures.js";
import { API, call, type Reply } from "./support/http.js";
import { getContainerRuntimeClient } from "testcontainers";

/** `docker inspect` of a service container (its Config carries the image's USER and HEALTHCHECK). */
const inspect = async (service: StartedService) => {
  const client = await getContainerRuntimeClient();
  return client.container.inspect(client.container.getById(service.container.getId()));
};

/**
 * Two containers of the service image on one PostgreSQL database, against the
 * orchestrator simulator running in this process: what one instance writes,
 * the other reads, through the REST interface only.
 */
describe("two service containers on one PostgreSQL database", () => {
  type Simulator = Awaited<ReturnType<typeof startOrchestratorSimulator>>;
  let simulator: Simulator;
  let postgres: StartedPostgres;
  let a: StartedService;
  let b: StartedService;
  const admin = anAdmin();
  const masterKey = aMasterKey();
  const replies: Reply[] = [];
  const viaA = () => recordingClient(a.origin, admin, replies);
  const viaB = () => recordingClient(b.origin, admin, replies);

  beforeAll(async () => {
    simulator = await startOrchestratorSimulator({ host: "127.0.0.1", port: 0 });
    postgres = await startPostgres({ label: "e2e" });
    const env = {
      SDWAN_STORAGE: "postgres",
      SDWAN_DATABASE_URL: postgres.connectionString,
      SDWAN_MASTER_KEY: masterKey,
      SDWAN_ADMIN_USER: admin.user,
      SDWAN_ADMIN_PASSWORD: admin.password,
    };
    // Started together, as an orchestrator scales a deployment: both migrate the same database.
    [a, b] = await Promise.all([
      startService({ env, name: "sdwan-e2e-pg-a" }),
      startService({ env, name: "sdwan-e2e-pg-b" }),
    ]);
  });

  afterAll(async () => {
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await postgres?.stop();
    await simulator?.stop();
  });

  it("answers /healthz and /readyz without credentials on both instances", async () => {
    for (const service of [a, b]) {
      expect((await call(service.origin, "GET", "/healthz")).status).toBe(200);
      expect((await call(service.origin, "GET", "/readyz")).status).toBe(200);
    }
  });

  it("refuses the interface without credentials or with a wrong password (401)", async () => {
    const anonymous = await call(a.origin, "GET", `${API}/connections`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.contentType).toContain("application/problem+json");
    const wrong = await call(b.origin, "GET", `${API}/connections`, {
      credentials: { user: admin.user, password: "not-the-password" },
    });
    expect(wrong.status).toBe(401);
  });

  it("lists, validates and serves customers through B a connection added through A", async () => {
    const added = await viaA().post("/connections", {
      alias: "Partner-One",
      orchestratorUrl: simulator.url,
      apiKey: PARTNER_KEY,
    });
    expect(added.status, added.text).toBe(200);
    expect(added.text).toBe("Connection successfully added");

    const list = await viaB().get("/connections");
    expect(list.status).toBe(200);
    expect(list.json).toEqual([{ alias: "Partner-One", orchestratorUrl: simulator.url }]);

    const one = await viaB().get("/connections/partner-one");
    expect(one.status).toBe(200);
    expect(one.json).toEqual({ alias: "Partner-One", orchestratorUrl: simulator.url, valid: true });

    simulator.resetCalls();
    const customers = await viaB().get("/partner/Partner-One/customers");
    expect(customers.status, customers.text).toBe(200);
    expect(customers.json).toHaveLength(PARTNER_1_CUSTOMERS);
    expect(Object.keys((customers.json as Record<string, unknown>[])[0] ?? {})).toHaveLength(20);
    // B decrypted A's key with the shared master key and used it, and only it.
    expect(simulator.callsFor(PARTNER_KEY)["enterpriseProxy/getEnterpriseProxyEnterprises"]).toBeGreaterThanOrEqual(1);

    // A serves (and caches) the same list.
    expect((await viaA().get("/partner/Partner-One/customers")).json).toHaveLength(PARTNER_1_CUSTOMERS);

    const duplicate = await viaB().post("/connections", {
      alias: "PARTNER-ONE",
      orchestratorUrl: simulator.url,
      apiKey: PARTNER_KEY,
    });
    expect(duplicate.status).toBe(409);
  });

  it("shows through A an update made through B", async () => {
    const updated = await viaB().put("/connections/Partner-One", { apiKey: CUSTOMER_KEY });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.text).toBe("Connection successfully updated");

    const verbose = await viaA().get("/connections/Partner-One?verbose=true");
    expect(verbose.status).toBe(200);
    expect(verbose.json).toMatchObject({ alias: "Partner-One", valid: true, type: "customer" });
    // Now a customer connection: A dropped its cached customers on B's change
    // notice (well before the 60 s TTL) and has none to serve.
    await expect
      .poll(async () => (await viaA().get("/partner/Partner-One/customers")).status, { timeout: 5_000, interval: 100 })
      .toBe(409);
  });

  it("no longer finds through B a connection deleted through A", async () => {
    const deleted = await viaA().delete("/connections/Partner-One");
    expect(deleted.status).toBe(204);
    expect((await viaB().get("/connections/Partner-One")).status).toBe(404);
    expect((await viaB().get("/connections")).json).toEqual([]);
  });

  it("never returns an apiKey or the admin password in a response body", () => {
    expect(replies.length).toBeGreaterThan(8);
    for (const reply of replies) {
      for (const secret of [PARTNER_KEY, CUSTOMER_KEY, admin.password, masterKey])
        expect(reply.text).not.toContain(secret);
    }
  });

  it("never writes an apiKey, the admin password, the master key or the database password to its logs", async () => {
    for (const service of [a, b]) {
      const logs = await service.logs();
      expect(logs).toContain("listening");
      for (const secret of [PARTNER_KEY, CUSTOMER_KEY, admin.password, masterKey, postgres.password])
        expect(logs).not.toContain(secret);
    }
  });

  it("runs as a non-root user that cannot write the application", async () => {
    const id = await a.container.exec(["id", "-u"]);
    expect(id.exitCode).toBe(0);
    expect(id.output.trim()).not.toBe("0");
    const write = await a.container.exec(["sh", "-c", "touch /app/dist/x"]);
    expect(write.exitCode).not.toBe(0);
    expect((await inspect(a)).Config.User).toMatch(/^[1-9]/);
  });

  it("passes the image's own HEALTHCHECK command", async () => {
    const test = (await inspect(a)).Config.Healthcheck?.Test ?? [];
    expect(test[0]).toBe("CMD");
    const result = await a.container.exec(test.slice(1));
    expect(result.exitCode, result.output).toBe(0);
    // The same command against a port nothing listens on fails.
    const elsewhere = await a.container.exec(test.slice(1), { env: { SDWAN_PORT: "1" } });
    expect(elsewhere.exitCode).not.toBe(0);
  });
});
