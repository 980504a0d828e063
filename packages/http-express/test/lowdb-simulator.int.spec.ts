import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { CUSTOMER_FIELDS } from "@sdwan-connections/core";
import {
  loadSampleDataset,
  startOrchestratorSimulator,
  type OrchestratorSimulator,
} from "@sdwan-connections/orchestrator-simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../src/service.js";
import { ADMIN, BASE, captureLogs, client, makeDataDir, startService, testConfig } from "./harness.js";

const CONNECTIONS = `${BASE}/connections`;
const PARTNER_KEY = "sample-partner-key-1";
const CUSTOMER_KEY = "sample-customer-key-1-1";

let simulator: OrchestratorSimulator;
let dir: string;
const logs = captureLogs();

beforeAll(async () => {
  simulator = await startOrchestratorSimulator({ data: await loadSampleDataset(), host: "127.0.0.1", port: 0 });
  dir = await makeDataDir();
});
afterAll(async () => {
  await simulator.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The real composition (lowdb + orchestrator-portal), as `pnpm start` wires it, on a temporary data dir. */
const start = (env: Record<string, string> = {}): Promise<RunningService> =>
  startService(
    testConfig({
      SDWAN_DATA_DIR: dir,
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: "127.0.0.1",
      ...env,
    }),
    { logDestination: logs.stream },
  );

describe("lowdb storage + orchestrator-portal against the simulator", () => {
  it("adds, validates, lists customers; keys are encrypted at rest and survive a restart", async () => {
    const first = await start();
    const call = client(first.url);
    try {
      expect(
        (
          await call("POST", CONNECTIONS, {
            body: { alias: "Carolina", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
          })
        ).status,
      ).toBe(200);
      const noSlash = simulator.url.replace(/\/$/, "");
      expect(
        (
          await call("POST", CONNECTIONS, {
            body: { alias: "granite", orchestratorUrl: noSlash, apiKey: CUSTOMER_KEY },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call("POST", CONNECTIONS, {
            body: { alias: "bogus", orchestratorUrl: simulator.url, apiKey: "not-a-key-999" },
          })
        ).status,
      ).toBe(422);

      expect((await call("GET", `${CONNECTIONS}/carolina?verbose=true`)).json()).toEqual({
        alias: "Carolina",
        orchestratorUrl: simulator.url,
        valid: true,
        type: "partner",
        version: 1,
        apiKeySetAt: expect.any(String),
        apiKeyFingerprint: expect.any(String),
        apiKeyExpiresAt: null,
        apiKeyExpirySource: null,
        keyRenewal: "off",
      });
      expect((await call("GET", `${CONNECTIONS}/granite?verbose=true`)).json()).toMatchObject({
        valid: true,
        type: "customer",
      });

      const customers = (await call("GET", `${BASE}/partner/carolina/customers`)).json<Record<string, unknown>[]>();
      const partner = simulator.data.partners.find((p) => p.keys.includes(PARTNER_KEY));
      expect(customers).toHaveLength(partner?.enterprises.length ?? -1);
      for (const customer of customers) expect(Object.keys(customer)).toEqual(CUSTOMER_FIELDS);
      expect((await call("GET", `${BASE}/partner/granite/customers`)).status).toBe(409);
    } finally {
      await first.close();
    }

    const files = await readdir(dir);
    expect(files).toContain("connections.json");
    expect(files).toContain("master.key");
    const stored = await readFile(join(dir, "connections.json"), "utf8");
    expect(stored).toContain("Carolina");
    expect(stored).not.toContain(PARTNER_KEY);
    expect(stored).not.toContain(CUSTOMER_KEY);

    const second = await start();
    try {
      const call2 = client(second.url);
      expect((await call2("GET", CONNECTIONS)).json()).toEqual([
        { alias: "Carolina", orchestratorUrl: simulator.url },
        { alias: "granite", orchestratorUrl: simulator.url.replace(/\/$/, "") },
      ]);
      expect((await call2("GET", `${CONNECTIONS}/CAROLINA`)).json()).toMatchObject({ valid: true });
      expect((await call2("GET", "/readyz", { user: null })).status).toBe(200);
    } finally {
      await second.close();
    }
    expect(logs.text()).not.toContain(PARTNER_KEY);
    expect(logs.text()).not.toContain(CUSTOMER_KEY);
  });

  it("with background checks off, keeps each validation as the connection's last known health; a delete removes it", async () => {
    const service = await start();
    const call = client(service.url);
    type Health = {
      intervalSeconds: number | null;
      connections: {
        alias: string;
        state: string;
        since: string | null;
        checks: { at: string; outcome: string; reason: string | null }[];
      }[];
    };
    const health = async () => (await call("GET", `${BASE}/health/connections`)).json<Health>();
    try {
      expect(
        (
          await call("POST", CONNECTIONS, {
            body: { alias: "checked", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call("POST", `${CONNECTIONS}?force=true`, {
            body: { alias: "refused", orchestratorUrl: simulator.url, apiKey: "not-a-key-999" },
          })
        ).status,
      ).toBe(200);
      expect((await health()).connections.filter(({ alias }) => ["checked", "refused"].includes(alias))).toMatchObject([
        { state: "unknown", since: null },
        { state: "unknown", since: null },
      ]);

      const before = Date.now();
      expect((await call("GET", `${CONNECTIONS}/checked`)).json()).toMatchObject({ valid: true });
      expect((await call("GET", `${CONNECTIONS}/REFUSED`)).json()).toMatchObject({ valid: false });
      const after = await health();
      expect(after.intervalSeconds).toBeNull();
      const [checked, refused] = ["checked", "refused"].map((name) =>
        after.connections.find(({ alias }) => alias === name),
      );
      expect(checked).toMatchObject({ state: "valid", checks: [{ outcome: "valid", reason: null }] });
      expect(Date.parse(checked?.since ?? "")).toBeGreaterThanOrEqual(before - 1);
      expect(checked?.checks[0]?.at).toBe(checked?.since);
      expect(refused).toMatchObject({ state: "invalid", checks: [{ outcome: "invalid", reason: expect.any(String) }] });

      expect((await call("DELETE", `${CONNECTIONS}/refused`)).status).toBe(204);
      expect(
        (
          await call("POST", `${CONNECTIONS}?force=true`, {
            body: { alias: "Refused", orchestratorUrl: simulator.url, apiKey: "not-a-key-999" },
          })
        ).status,
      ).toBe(200);
      expect((await health()).connections.find(({ alias }) => alias === "Refused")).toEqual({
        alias: "Refused",
        state: "unknown",
        since: null,
        checks: [],
      });
    } finally {
      for (const alias of ["checked", "refused"]) await call("DELETE", `${CONNECTIONS}/${alias}`);
      await service.close();
    }
  });

  it("answers 502 when the orchestrator answers garbage and 504 when it is too slow, during customers", async () => {
    const service = await start({ SDWAN_ORCHESTRATOR_TIMEOUT_MS: "300", SDWAN_CUSTOMERS_CACHE_TTL_MS: "0" });
    const call = client(service.url);
    try {
      await call("PUT", `${CONNECTIONS}/carolina?force=true`, { body: { apiKey: PARTNER_KEY } });
      simulator.setFault(PARTNER_KEY, { kind: "malformedJson" });
      expect((await call("GET", `${BASE}/partner/carolina/customers`)).status).toBe(502);
      simulator.setFault(PARTNER_KEY, { kind: "delay", ms: 1_500 });
      expect((await call("GET", `${BASE}/partner/carolina/customers`)).status).toBe(504);
      expect((await call("GET", `${CONNECTIONS}/carolina?verbose=true`)).json()).toMatchObject({ valid: false });
    } finally {
      simulator.setFault(PARTNER_KEY, undefined);
      await service.close();
    }
  });

  it("refuses an orchestrator host outside SDWAN_ORCHESTRATOR_ALLOWED_HOSTS", async () => {
    const service = await start({ SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: "vco.example.net" });
    try {
      simulator.resetCalls();
      const reply = await client(service.url)("POST", CONNECTIONS, {
        body: { alias: "elsewhere", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
      });
      expect(reply.status).toBe(422);
      expect(Object.values(simulator.callsFor(PARTNER_KEY)).every((calls) => calls === 0)).toBe(true);
    } finally {
      await service.close();
    }
  });
});

describe("destinations (the hostile review's findings)", () => {
  it("refuses link-local and metadata destinations at add and update, forced or not, unless the allowlist names the host", async () => {
    const service = await start({ SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: "" });
    const call = client(service.url);
    try {
      expect(
        (
          await call("POST", `${CONNECTIONS}?force=true`, {
            body: { alias: "ok", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
          })
        ).status,
      ).toBe(200);
      const fenced = [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fe80::1]/",
        "http://[fd00:ec2::254]/",
        "http://metadata.google.internal/",
        // Issue 19, item 6: Alibaba's and Oracle's metadata services, NAT64 and IPv4-compatible spellings of 169.254.169.254, 6to4.
        "http://100.100.100.200/latest/meta-data/",
        "http://192.0.0.192/opc/v1/instance/",
        "http://[64:ff9b::a9fe:a9fe]/",
        "http://[::a9fe:a9fe]/",
        "http://[64:ff9b:1::a9fe:a9fe]/",
        "http://[2002:a9fe:a9fe::]/",
      ];
      for (const orchestratorUrl of fenced)
        for (const force of ["?force=true", ""]) {
          const added = await call("POST", `${CONNECTIONS}${force}`, {
            body: { alias: "meta", orchestratorUrl, apiKey: PARTNER_KEY },
          });
          expect(added.status, orchestratorUrl).toBe(400);
          expect(added.json<{ errors: { field: string }[] }>().errors[0]?.field).toBe("orchestratorUrl");
          expect(
            (await call("PUT", `${CONNECTIONS}/ok${force}`, { body: { orchestratorUrl } })).status,
            orchestratorUrl,
          ).toBe(400);
        }
      expect((await call("GET", CONNECTIONS)).json()).toContainEqual({ alias: "ok", orchestratorUrl: simulator.url });
      await call("DELETE", `${CONNECTIONS}/ok`);
    } finally {
      await service.close();
    }
    const allowing = await start({ SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: "127.0.0.1,169.254.169.254" });
    try {
      const added = await client(allowing.url)("POST", `${CONNECTIONS}?force=true`, {
        body: { alias: "meta", orchestratorUrl: "http://169.254.169.254/", apiKey: PARTNER_KEY },
      });
      expect(added.status).toBe(200);
      await client(allowing.url)("DELETE", `${CONNECTIONS}/meta`);
    } finally {
      await allowing.close();
    }
  });

  it("answers one reason, 'could not connect', for a closed port and for an answer that is not the orchestrator's; the detail is logged", async () => {
    const service = await start({ SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: "" });
    const call = client(service.url);
    try {
      // Port 9 (discard) listens nowhere here.
      const closedPort = "http://127.0.0.1:9/";
      simulator.setFault(PARTNER_KEY, { kind: "redirectToLogin" });
      const reasons: string[] = [];
      for (const [alias, orchestratorUrl] of [
        ["closed", closedPort],
        ["redirect", simulator.url],
      ] as const) {
        await call("POST", `${CONNECTIONS}?force=true`, { body: { alias, orchestratorUrl, apiKey: PARTNER_KEY } });
        reasons.push((await call("GET", `${CONNECTIONS}/${alias}?verbose=true`)).json<{ reason: string }>().reason);
      }
      // Issue 19, item 7: the same sentence, with no attempt count, whatever was met; the attempts go to the log.
      expect(new Set(reasons)).toEqual(
        new Set(["Could not connect to the orchestrator for enterprise/getEnterprise."]),
      );
      const failures = logs.entries().filter((entry) => entry["msg"] === "orchestrator call failed");
      const details = failures.map((entry) => entry["detail"]);
      expect(details).toContain("ECONNREFUSED");
      expect(failures.find((entry) => entry["detail"] === "ECONNREFUSED")?.["attempts"]).toBe(3);
      expect(details).toContain("HTTP 302 redirect, not followed");
      for (const alias of ["closed", "redirect"]) await call("DELETE", `${CONNECTIONS}/${alias}`);
    } finally {
      simulator.setFault(PARTNER_KEY, undefined);
      await service.close();
    }
  });
});
