import { aJwt } from "@sdwan-connections/core/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anAddBody, BASE, startHarness, TEST_KEYS, testOrchestrator, type Harness } from "./harness.js";

const CONNECTIONS = `${BASE}/connections`;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ orchestrator: testOrchestrator() });
});
afterAll(async () => {
  await h[Symbol.asyncDispose]();
});
beforeEach(async () => {
  for (const { alias } of (await h.call("GET", CONNECTIONS)).json<{ alias: string }[]>()) await h.call("DELETE", `${CONNECTIONS}/${alias}`);
});

const stored = async (alias = "lab") => (await h.call("GET", `${CONNECTIONS}/${alias}?stored=true`)).json<Record<string, unknown>>();
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000);

describe("docs/interface.md §10: key lifecycle", () => {
  it("takes apiKeyExpiresAt on POST and PUT, shows it with verbose and stored, and a new key without one clears it", async () => {
    expect((await h.call("POST", `${CONNECTIONS}?force=true`, { body: anAddBody({ alias: "lab", apiKeyExpiresAt: "2027-01-31T01:00:00+01:00" }) })).status).toBe(200);
    expect(await stored()).toMatchObject({ apiKeyExpiresAt: "2027-01-31T00:00:00.000Z", apiKeyExpirySource: "declared" });
    const verbose = (await h.call("GET", `${CONNECTIONS}/lab?verbose=true`)).json<Record<string, unknown>>();
    expect(verbose).toMatchObject({ apiKeyExpiresAt: "2027-01-31T00:00:00.000Z", apiKeyExpirySource: "declared" });
    expect(Object.keys((await h.call("GET", `${CONNECTIONS}/lab`)).json<object>())).toEqual(["alias", "orchestratorUrl", "valid"]);

    const { version } = await stored();
    expect((await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { apiKeyExpiresAt: "2027-01-31T00:00:00Z" } })).status).toBe(200);
    expect((await stored()).version).toBe(version); // the same moment: nothing changed
    expect((await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { apiKeyExpiresAt: "2027-02-28T00:00:00Z" } })).status).toBe(200);
    expect((await stored()).version).not.toBe(version);
    expect((await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { apiKey: TEST_KEYS.customer } })).status).toBe(200);
    expect(await stored()).toMatchObject({ apiKeyExpiresAt: null, apiKeyExpirySource: null });
  });

  it("refuses a bad apiKeyExpiresAt with 400 naming the field, changing nothing", async () => {
    const reply = await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "lab", apiKeyExpiresAt: "next year" }) });
    expect(reply.status).toBe(400);
    expect(reply.json<{ errors: unknown[] }>().errors).toEqual([{ field: "apiKeyExpiresAt", message: "must be an RFC 3339 time with an offset, e.g. 2027-01-31T00:00:00Z" }]);
    expect((await h.call("GET", `${CONNECTIONS}/lab?stored=true`)).status).toBe(404);
  });

  it("reads the expiry of a JWT key (source token), never showing the key", async () => {
    const jwt = aJwt({ exp: 1_800_000_000 });
    expect((await h.call("POST", `${CONNECTIONS}?force=true`, { body: anAddBody({ alias: "lab", apiKey: jwt }) })).status).toBe(200);
    const reply = await h.call("GET", `${CONNECTIONS}/lab?stored=true`);
    expect(reply.json()).toMatchObject({ apiKeyExpiresAt: "2027-01-15T08:00:00.000Z", apiKeyExpirySource: "token" });
    expect(reply.text).not.toContain(jwt);
  });

  it("counts keys expiring within 7 and 30 days in /metrics, without aliases", async () => {
    await h.call("POST", `${CONNECTIONS}?force=true`, { body: anAddBody({ alias: "soon", apiKeyExpiresAt: inDays(3).toISOString() }) });
    await h.call("POST", `${CONNECTIONS}?force=true`, { body: anAddBody({ alias: "later", apiKeyExpiresAt: inDays(20).toISOString() }) });
    await h.call("POST", `${CONNECTIONS}?force=true`, { body: anAddBody({ alias: "far", apiKeyExpiresAt: inDays(200).toISOString() }) });
    const metrics = (await h.call("GET", "/metrics")).text;
    expect(metrics).toContain('sdwan_connections_keys_expiring{within_days="7"} 1');
    expect(metrics).toContain('sdwan_connections_keys_expiring{within_days="30"} 2');
    expect(metrics).not.toMatch(/soon|later/);
  });
});
