import { chownSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { startService, type StartedService } from "./support/containers.js";
import { anAdmin, PARTNER_1_CUSTOMERS, PARTNER_KEY, recordingClient } from "./support/fixtures.js";
import { call, type Reply } from "./support/http.js";

/**
 * The image's default: lowdb in /data, the master key generated there on the
 * first start. A data directory outlives its container.
 */
describe("a service container with the default lowdb store on a data directory", () => {
  type Simulator = Awaited<ReturnType<typeof startOrchestratorSimulator>>;
  let simulator: Simulator;
  let dataDir: string;
  const running: StartedService[] = [];
  const admin = anAdmin();
  const replies: Reply[] = [];
  const IMAGE_USER_ID = 1000;
  let dataDirOwner: string | undefined;
  const env = { SDWAN_ADMIN_USER: admin.user, SDWAN_ADMIN_PASSWORD: admin.password };
  const start = async (): Promise<StartedService> => {
    const service = await startService({ env, dataDir, name: "sdwan-e2e-lowdb", user: dataDirOwner });
    running.push(service);
    return service;
  };

  beforeAll(async () => {
    simulator = await startOrchestratorSimulator({ host: "127.0.0.1", port: 0 });
    // mkdtemp makes it private (0700), as the service demands. Its owner runs the container: the image's
    // user (uid 1000) when this test runs as root, which hands the directory over; else this test's user.
    dataDir = mkdtempSync(join(tmpdir(), "sdwan-e2e-data-"));
    if (process.getuid?.() === 0) chownSync(dataDir, IMAGE_USER_ID, IMAGE_USER_ID);
    else dataDirOwner = `${process.getuid?.()}:${process.getgid?.()}`;
  });

  afterAll(async () => {
    await Promise.allSettled(running.map((service) => service.stop()));
    await simulator?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps a connection, and the generated master key that opens its apiKey, across containers", async () => {
    const first = await start();
    const added = await recordingClient(first.origin, admin, replies).post("/connections", {
      alias: "lab",
      orchestratorUrl: simulator.url,
      apiKey: PARTNER_KEY,
    });
    expect(added.status, added.text).toBe(200);
    await first.stop();

    // A new container (not a restart of the same one) on the same data directory.
    const second = await start();
    const api = recordingClient(second.origin, admin, replies);
    expect((await api.get("/connections")).json).toEqual([{ alias: "lab", orchestratorUrl: simulator.url }]);
    expect((await api.get("/connections/lab")).json).toEqual({
      alias: "lab",
      orchestratorUrl: simulator.url,
      valid: true,
    });
    const customers = await api.get("/partner/lab/customers");
    expect(customers.status, customers.text).toBe(200);
    expect(customers.json).toHaveLength(PARTNER_1_CUSTOMERS);
  });

  it("keeps its data across a restart of the container", async () => {
    const service = running.at(-1);
    if (service === undefined) throw new Error("the previous test started no container");
    await service.container.restart({ timeout: 10_000 });
    let ready = 0;
    for (let i = 0; i < 100 && ready !== 200; i++) {
      ready = await call(service.origin, "GET", "/readyz").then(
        (reply) => reply.status,
        () => 0,
      );
      if (ready !== 200) await new Promise((done) => setTimeout(done, 200));
    }
    expect(ready).toBe(200);
    const one = await recordingClient(service.origin, admin, replies).get("/connections/lab");
    expect(one.json).toEqual({ alias: "lab", orchestratorUrl: simulator.url, valid: true });
  });

  it("carries the CLI, which works on the pod's own store beside the running service (kubectl exec)", async () => {
    const service = running.at(-1);
    if (service === undefined) throw new Error("the first test started no container");
    const cli = (...args: string[]) => service.container.exec(["sdwan-connections", ...args]);

    const listed = await cli("list", "-o", "json");
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ alias: "lab", orchestratorUrl: simulator.url }),
    ]);

    // A key is never an argument: piped in on standard input, as an operator would from a file.
    const added = await service.container.exec(
      ["sh", "-c", `printf %s "$KEY" | sdwan-connections add lab-cli ${simulator.url}`],
      { env: { KEY: PARTNER_KEY } },
    );
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.output).not.toContain(PARTNER_KEY);

    // The running service sees the CLI's write at once, its customers included.
    const api = recordingClient(service.origin, admin, replies);
    expect((await api.get("/connections/lab-cli")).json).toEqual({
      alias: "lab-cli",
      orchestratorUrl: simulator.url,
      valid: true,
    });
    expect((await api.get("/partner/lab-cli/customers")).json).toHaveLength(PARTNER_1_CUSTOMERS);
    const removed = await cli("delete", "lab-cli");
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect((await api.get("/connections/lab-cli")).status).toBe(404);
  });

  it("serves the operator console from the image, with its files", async () => {
    const service = running.at(-1);
    if (service === undefined) throw new Error("the first test started no container");
    const page = await call(service.origin, "GET", "/console/");
    expect(page.status).toBe(200);
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page.text)?.[1];
    expect(script).toBeDefined();
    expect((await call(service.origin, "GET", script as string)).status).toBe(200);
  });

  it("generated its master key into the data directory, readable by its owner only", () => {
    expect(readdirSync(dataDir)).toContain("master.key");
    expect(statSync(join(dataDir, "master.key")).mode & 0o077).toBe(0);
  });

  it("never returns the apiKey or the admin password", async () => {
    for (const reply of replies) {
      expect(reply.text).not.toContain(PARTNER_KEY);
      expect(reply.text).not.toContain(admin.password);
    }
    const logs = await running.at(-1)?.logs();
    expect(logs).toBeDefined();
    expect(logs).not.toContain(PARTNER_KEY);
    expect(logs).not.toContain(admin.password);
  });
});
