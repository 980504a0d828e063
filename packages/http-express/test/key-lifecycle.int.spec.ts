import { aJwt } from "@sdwan-connections/core/testing";
import {
  loadSampleDataset,
  startOrchestratorSimulator,
  type Dataset,
  type OrchestratorSimulator,
} from "@sdwan-connections/orchestrator-simulator";
import type { Int } from "io-ts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { rm } from "node:fs/promises";
import { createInMemoryStorage } from "@sdwan-connections/core";
import type { RunningService } from "../src/service.js";
import {
  ADMIN,
  anAddBody,
  BASE,
  captureLogs,
  client,
  makeDataDir,
  startHarness,
  startService,
  TEST_KEYS,
  testConfig,
  testOrchestrator,
  type Harness,
} from "./harness.js";

const CONNECTIONS = `${BASE}/connections`;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ orchestrator: testOrchestrator() });
});
afterAll(async () => {
  await h[Symbol.asyncDispose]();
});
beforeEach(async () => {
  for (const { alias } of (await h.call("GET", CONNECTIONS)).json<{ alias: string }[]>())
    await h.call("DELETE", `${CONNECTIONS}/${alias}`);
});

const stored = async (alias = "lab") =>
  (await h.call("GET", `${CONNECTIONS}/${alias}?stored=true`)).json<Record<string, unknown>>();
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000);

describe("docs/interface.md §10: key lifecycle", () => {
  it("takes apiKeyExpiresAt on POST and PUT, shows it with verbose and stored, and a new key without one clears it", async () => {
    expect(
      (
        await h.call("POST", `${CONNECTIONS}?force=true`, {
          body: anAddBody({ alias: "lab", apiKeyExpiresAt: "2027-01-31T01:00:00+01:00" }),
        })
      ).status,
    ).toBe(200);
    expect(await stored()).toMatchObject({
      apiKeyExpiresAt: "2027-01-31T00:00:00.000Z",
      apiKeyExpirySource: "declared",
    });
    const verbose = (await h.call("GET", `${CONNECTIONS}/lab?verbose=true`)).json<Record<string, unknown>>();
    expect(verbose).toMatchObject({ apiKeyExpiresAt: "2027-01-31T00:00:00.000Z", apiKeyExpirySource: "declared" });
    expect(Object.keys((await h.call("GET", `${CONNECTIONS}/lab`)).json<object>())).toEqual([
      "alias",
      "orchestratorUrl",
      "valid",
    ]);

    const { version } = await stored();
    expect(
      (await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { apiKeyExpiresAt: "2027-01-31T00:00:00Z" } }))
        .status,
    ).toBe(200);
    expect((await stored()).version).toBe(version); // the same moment: nothing changed
    expect(
      (await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { apiKeyExpiresAt: "2027-02-28T00:00:00Z" } }))
        .status,
    ).toBe(200);
    expect((await stored()).version).not.toBe(version);
    expect(
      (await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { apiKey: TEST_KEYS.customer } })).status,
    ).toBe(200);
    expect(await stored()).toMatchObject({ apiKeyExpiresAt: null, apiKeyExpirySource: null });
  });

  it("refuses a bad apiKeyExpiresAt with 400 naming the field, changing nothing", async () => {
    const reply = await h.call("POST", CONNECTIONS, {
      body: anAddBody({ alias: "lab", apiKeyExpiresAt: "next year" }),
    });
    expect(reply.status).toBe(400);
    expect(reply.json<{ errors: unknown[] }>().errors).toEqual([
      { field: "apiKeyExpiresAt", message: "must be an RFC 3339 time with an offset, e.g. 2027-01-31T00:00:00Z" },
    ]);
    expect((await h.call("GET", `${CONNECTIONS}/lab?stored=true`)).status).toBe(404);
  });

  it("reads the expiry of a JWT key (source token), never showing the key", async () => {
    const jwt = aJwt({ exp: 1_800_000_000 });
    expect(
      (await h.call("POST", `${CONNECTIONS}?force=true`, { body: anAddBody({ alias: "lab", apiKey: jwt }) })).status,
    ).toBe(200);
    const reply = await h.call("GET", `${CONNECTIONS}/lab?stored=true`);
    expect(reply.json()).toMatchObject({ apiKeyExpiresAt: "2027-01-15T08:00:00.000Z", apiKeyExpirySource: "token" });
    expect(reply.text).not.toContain(jwt);
  });

  it("counts keys expiring within 7 and 30 days in /metrics, without aliases", async () => {
    await h.call("POST", `${CONNECTIONS}?force=true`, {
      body: anAddBody({ alias: "soon", apiKeyExpiresAt: inDays(3).toISOString() }),
    });
    await h.call("POST", `${CONNECTIONS}?force=true`, {
      body: anAddBody({ alias: "later", apiKeyExpiresAt: inDays(20).toISOString() }),
    });
    await h.call("POST", `${CONNECTIONS}?force=true`, {
      body: anAddBody({ alias: "far", apiKeyExpiresAt: inDays(200).toISOString() }),
    });
    const metrics = (await h.call("GET", "/metrics")).text;
    expect(metrics).toContain('sdwan_connections_keys_expiring{within_days="7"} 1');
    expect(metrics).toContain('sdwan_connections_keys_expiring{within_days="30"} 2');
    expect(metrics).not.toMatch(/soon|later/);
  });
});

describe("docs/interface.md §10: the orchestrator's token list (source orchestrator), against the simulator", () => {
  const token = aJwt({ tokenUuid: "00000000-0000-4000-8000-00000000a001" }); // an orchestrator token without exp
  const unprivileged = aJwt({ tokenUuid: "00000000-0000-4000-8000-00000000a002" });
  const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 20 * 86_400_000).toISOString();
  const data: Dataset = {
    partners: [{ enterpriseProxyId: 10 as Int, name: "Partner", keys: [token], enterprises: [] }],
    customerKeys: [],
    apiTokens: [{ key: token, tokenUuid: "00000000-0000-4000-8000-00000000a001", expiration: expiresAt }],
  };
  let simulator: OrchestratorSimulator;
  let service: RunningService;
  let call: ReturnType<typeof client>;
  let dir: string;

  beforeAll(async () => {
    const sample = await loadSampleDataset();
    // The customer key without the right to read tokens: an enterprise of the sample's, its key a token too.
    const enterprise = sample.partners[0]?.enterprises[0] as Dataset["partners"][number]["enterprises"][number];
    simulator = await startOrchestratorSimulator({
      data: {
        ...data,
        partners: [{ ...(data.partners[0] as Dataset["partners"][number]), enterprises: [enterprise] }],
        customerKeys: [{ key: unprivileged, enterpriseId: enterprise.id }],
        apiTokens: [
          ...(data.apiTokens ?? []),
          {
            key: unprivileged,
            tokenUuid: "00000000-0000-4000-8000-00000000a002",
            expiration: expiresAt,
            readsTokens: false,
          },
        ],
      },
    });
    // The orchestrator client the configuration opens (the portal's), background health on.
    dir = await makeDataDir();
    service = await startService(
      testConfig({
        SDWAN_DATA_DIR: dir,
        SDWAN_ADMIN_USER: ADMIN.name,
        SDWAN_ADMIN_PASSWORD: ADMIN.password,
        SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: "127.0.0.1",
        SDWAN_HEALTH_INTERVAL_S: "3600",
      }),
      { storage: createInMemoryStorage(), logDestination: captureLogs().stream },
    );
    call = client(service.url);
  });
  afterAll(async () => {
    await service.close();
    await simulator.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const storedOf = async (alias: string) =>
    (await call("GET", `${CONNECTIONS}/${alias}?stored=true`)).json<Record<string, unknown>>();

  it("shows the expiry the token list gives a key, warns from it, and leaves a key without the right valid with no expiry", async () => {
    for (const [alias, apiKey] of [
      ["listed", token],
      ["unprivileged", unprivileged],
    ])
      expect(
        (await call("POST", CONNECTIONS, { body: { alias, orchestratorUrl: simulator.url, apiKey } })).status,
      ).toBe(200);
    expect(
      simulator.calls.byMethod["enterpriseProxy/getApiTokens"] + simulator.calls.byMethod["enterprise/getApiTokens"],
    ).toBe(0); // not on a write
    await service.composition.service.health.monitor?.round();

    expect(await storedOf("listed")).toMatchObject({ apiKeyExpiresAt: expiresAt, apiKeyExpirySource: "orchestrator" });
    const verbose = await call("GET", `${CONNECTIONS}/listed?verbose=true`);
    expect(verbose.json()).toMatchObject({
      valid: true,
      apiKeyExpiresAt: expiresAt,
      apiKeyExpirySource: "orchestrator",
    });
    expect(verbose.text).not.toContain(token);
    const audit = (await call("GET", `${BASE}/audit?alias=listed`)).json<{
      entries: { action: string; detail: string | null }[];
    }>();
    expect(audit.entries.filter(({ action }) => action === "key-expiring").map(({ detail }) => detail)).toEqual([
      expect.stringMatching(/^expiresAt=\S+ daysLeft=20 source=orchestrator threshold=30$/),
    ]);

    expect(simulator.callsFor(unprivileged)["enterprise/getApiTokens"]).toBe(1); // asked, refused (the privilege error)
    expect((await call("GET", `${CONNECTIONS}/unprivileged?verbose=true`)).json()).toMatchObject({
      valid: true,
      apiKeyExpiresAt: null,
      apiKeyExpirySource: null,
    });
    expect(await storedOf("unprivileged")).toMatchObject({ apiKeyExpiresAt: null, apiKeyExpirySource: null });

    // Remembered: the scan asks no token list again.
    await service.composition.service.health.keyExpiry.scanNow();
    expect(
      simulator.calls.byMethod["enterpriseProxy/getApiTokens"] + simulator.calls.byMethod["enterprise/getApiTokens"],
    ).toBe(2);
  });
});
