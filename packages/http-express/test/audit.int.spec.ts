import {
  loadSampleDataset,
  startOrchestratorSimulator,
  type OrchestratorSimulator,
} from "@sdwan-connections/orchestrator-simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rm } from "node:fs/promises";
import {
  ADMIN,
  anAddBody,
  BASE,
  captureLogs,
  client,
  makeDataDir,
  startHarness,
  startService,
  testConfig,
  TEST_KEYS,
  VIEWER,
  type Harness,
} from "./harness.js";

const CONNECTIONS = `${BASE}/connections`;
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h[Symbol.asyncDispose]();
});

interface Page {
  entries: Record<string, unknown>[];
  next: string | null;
}

describe("the audit trail over HTTP (docs/interface.md §1)", () => {
  it("records every write with who and which request, failed ones included, and never a key; admins read it a page at a time", async () => {
    const added = await h.call("POST", CONNECTIONS, { body: anAddBody(), headers: { "x-request-id": "req-add-1" } });
    expect(added.status).toBe(200);
    expect(
      (
        await h.call("POST", `${CONNECTIONS}?force=true`, {
          body: anAddBody({ alias: "forced", apiKey: TEST_KEYS.refused }),
        })
      ).status,
    ).toBe(200);
    expect((await h.call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey: TEST_KEYS.refused } })).status).toBe(422);
    expect((await h.call("DELETE", `${CONNECTIONS}/forced`, { headers: { "if-match": '"9"' } })).status).toBe(412);
    expect(
      (await h.call("DELETE", `${CONNECTIONS}/forced`, { user: VIEWER, headers: { "x-request-id": "req-viewer-1" } }))
        .status,
    ).toBe(403);

    const page = await h.call("GET", `${BASE}/audit`);
    expect(page.status).toBe(200);
    const { entries, next } = page.json<Page>();
    expect(next).toBeNull();
    expect(
      entries.map(({ action, actor, alias, fields, forced, validation, outcome, failure }) => ({
        action,
        actor,
        alias,
        fields,
        forced,
        validation,
        outcome,
        failure,
      })),
    ).toEqual([
      {
        action: "forbidden",
        actor: VIEWER.name,
        alias: "forced",
        fields: [],
        forced: false,
        validation: "not-asked",
        outcome: "failed",
        failure: "Forbidden",
      },
      {
        action: "delete",
        actor: "admin",
        alias: "forced",
        fields: [],
        forced: false,
        validation: "not-asked",
        outcome: "failed",
        failure: "VersionMismatch",
      },
      {
        action: "update",
        actor: "admin",
        alias: "lab",
        fields: ["apiKey"],
        forced: false,
        validation: "invalid",
        outcome: "failed",
        failure: "ValidationRefused",
      },
      {
        action: "add",
        actor: "admin",
        alias: "forced",
        fields: ["alias", "orchestratorUrl", "apiKey"],
        forced: true,
        validation: "not-asked",
        outcome: "succeeded",
        failure: null,
      },
      {
        action: "add",
        actor: "admin",
        alias: "Lab",
        fields: ["alias", "orchestratorUrl", "apiKey"],
        forced: false,
        validation: "valid",
        outcome: "succeeded",
        failure: null,
      },
    ]);
    expect(entries.at(-1)?.["requestId"]).toBe("req-add-1");
    expect(entries[0]).toMatchObject({ requestId: "req-viewer-1", detail: "DELETE" });
    expect(page.text).not.toContain(TEST_KEYS.partner);
    expect(page.text).not.toContain(TEST_KEYS.refused);

    const first = (await h.call("GET", `${BASE}/audit?limit=3&alias=FORCED`)).json<Page>();
    expect(first.entries.map((entry) => entry["action"])).toEqual(["forbidden", "delete", "add"]);
    const paged = (await h.call("GET", `${BASE}/audit?limit=3`)).json<Page>();
    expect(paged.entries).toHaveLength(3);
    const rest = (
      await h.call("GET", `${BASE}/audit?limit=3&before=${encodeURIComponent(paged.next ?? "")}`)
    ).json<Page>();
    expect([...paged.entries, ...rest.entries]).toEqual(entries);
    expect(rest.next).toBeNull();
  });

  it("records a key check that did not match as a refused attempt, with who and which request, never the key tried", async () => {
    expect((await h.call("POST", `${CONNECTIONS}?force=true`, { body: anAddBody({ alias: "checked" }) })).status).toBe(
      200,
    );
    const guess = "a-guessed-key-0000";
    const mismatch = await h.call("POST", `${CONNECTIONS}/checked/key-check`, {
      body: { apiKey: guess },
      headers: { "x-request-id": "req-guess-1" },
    });
    expect(mismatch.json()).toEqual({ matches: false });
    expect(
      (await h.call("POST", `${CONNECTIONS}/checked/key-check`, { body: { apiKey: TEST_KEYS.partner } })).json(),
    ).toEqual({ matches: true });
    const page = await h.call("GET", `${BASE}/audit?alias=checked`);
    expect(
      page.json<Page>().entries.map(({ action, actor, requestId, fields, outcome, failure }) => ({
        action,
        actor,
        requestId,
        fields,
        outcome,
        failure,
      })),
    ).toEqual([
      {
        action: "key-check",
        actor: "admin",
        requestId: "req-guess-1",
        fields: ["apiKey"],
        outcome: "failed",
        failure: "KeyMismatch",
      },
      {
        action: "add",
        actor: "admin",
        requestId: expect.any(String),
        fields: ["alias", "orchestratorUrl", "apiKey"],
        outcome: "succeeded",
        failure: null,
      },
    ]);
    expect(page.text).not.toContain(guess);
  });

  it("is for admins only; a bad query is 400 naming the option, an unknown one is not echoed", async () => {
    expect((await h.call("GET", `${BASE}/audit`, { user: VIEWER })).status).toBe(403);
    const bad = await h.call("GET", `${BASE}/audit?limit=5000`);
    expect(bad.status).toBe(400);
    expect(bad.json<{ errors: { field: string }[] }>().errors.map((error) => error.field)).toEqual(["query.limit"]);
    const unknown = await h.call("GET", `${BASE}/audit?pasted-secret=1`);
    expect(unknown.status).toBe(400);
    expect(unknown.text).not.toContain("pasted-secret");
  });
});

describe("an update that changes nothing, on the embedded store against the simulator", () => {
  // The service as `pnpm start` wires it (the embedded store, the orchestrator client) on a data directory of its own.
  const startOnSimulator = async (env: Record<string, string> = {}) => {
    const dir = await makeDataDir();
    const config = testConfig({
      SDWAN_DATA_DIR: dir,
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: "127.0.0.1",
      ...env,
    });
    const service = await startService(config, { logDestination: captureLogs().stream });
    return {
      call: client(service.url),
      [Symbol.asyncDispose]: async () => {
        await service.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  };
  const KEY = "sample-partner-key-1";
  const OTHER_KEY = "sample-partner-key-2";
  const listings = (simulator: OrchestratorSimulator) =>
    simulator.calls.byMethod["enterpriseProxy/getEnterpriseProxyEnterprises"];

  // Regression: a PUT that changed nothing was audited as a change, and 300 of them pushed 5 real changes out.
  it(
    "is recorded as an unchanged attempt: 300 of them push no change out of the changes' retention",
    { timeout: 120_000 },
    async () => {
      await using simulator = await startOrchestratorSimulator({
        data: await loadSampleDataset(),
        host: "127.0.0.1",
        port: 0,
      });
      await using service = await startOnSimulator({ SDWAN_AUDIT_MAX_ENTRIES: "5" });
      const { call } = service;
      expect(
        (await call("POST", CONNECTIONS, { body: { alias: "lab", orchestratorUrl: simulator.url, apiKey: KEY } }))
          .status,
      ).toBe(200);
      for (const apiKey of [OTHER_KEY, KEY, OTHER_KEY, KEY])
        expect((await call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey } })).status).toBe(200);
      const version = (await call("GET", `${CONNECTIONS}/lab?stored=true`)).json<{ version: number }>().version;
      for (let i = 0; i < 300; i += 1) {
        const same = await call("PUT", `${CONNECTIONS}/lab`, { body: { orchestratorUrl: simulator.url, apiKey: KEY } });
        expect(same.text).toBe("Connection successfully updated");
      }
      expect((await call("GET", `${CONNECTIONS}/lab?stored=true`)).json()).toMatchObject({ version });
      const { entries } = (await call("GET", `${BASE}/audit?alias=lab&limit=1000`)).json<Page>();
      expect(entries.filter((entry) => entry["outcome"] === "unchanged")).toHaveLength(300);
      expect(entries.filter((entry) => entry["outcome"] === "succeeded").map((entry) => entry["action"])).toEqual([
        "update",
        "update",
        "update",
        "update",
        "add",
      ]);
    },
  );

  // Regression: a PUT that changed nothing kept the customers cache (SPEC §4: an update drops it).
  it("drops the connection's cached customers, so the next listing asks the orchestrator again", async () => {
    await using simulator = await startOrchestratorSimulator({
      data: await loadSampleDataset(),
      host: "127.0.0.1",
      port: 0,
    });
    await using service = await startOnSimulator();
    const { call } = service;
    expect(
      (await call("POST", CONNECTIONS, { body: { alias: "lab", orchestratorUrl: simulator.url, apiKey: KEY } })).status,
    ).toBe(200);
    const customers = async () => (await call("GET", `${BASE}/partner/lab/customers`)).json<unknown[]>();
    const first = await customers();
    expect(await customers()).toEqual(first);
    expect(listings(simulator)).toBe(1);
    expect((await call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey: KEY } })).status).toBe(200);
    expect(await customers()).toEqual(first);
    expect(listings(simulator)).toBe(2);
  });
});
