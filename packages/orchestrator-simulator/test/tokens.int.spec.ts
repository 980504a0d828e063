import { describe, expect, it, vi } from "vitest";
import {
  GENERATED_TOKEN_EXPIRATION,
  loadSampleDataset,
  MAX_TOKEN_LIFETIME_MS,
  startOrchestratorSimulator,
  type Dataset,
  type OrchestratorSimulator,
  type PortalMethod,
} from "../src/index.js";

const PARTNER_KEY = "sample-partner-key-1";
const CUSTOMER_KEY = "sample-customer-key-1-1";
const DAY = 86_400_000;
const PRIVILEGE = { error: { code: -32603, message: "privileges check failed" } };
const TOKEN_ERROR = { error: { code: -32000, message: "tokenError [expired or invalid token]" } };

const call = async (sim: OrchestratorSimulator, method: PortalMethod, key: string, body: unknown = {}) => {
  const res = await fetch(`${sim.url}portal/rest/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Token ${key}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

const identifies = async (sim: OrchestratorSimulator, key: string) =>
  (await call(sim, "enterpriseProxy/getEnterpriseProxyProperty", key)).status === 200 ||
  (await call(sim, "enterprise/getEnterprise", key)).status === 200;

/** A partner's new token made and downloaded with `key`: its id and key. */
const createAndDownload = async (sim: OrchestratorSimulator, key = PARTNER_KEY) => {
  const enterpriseUserId = sim.tokenOf(key)?.createdForEnterpriseUserId;
  const created = await call(sim, "enterpriseProxy/createApiToken", key, {
    enterpriseUserId,
    name: "renewed",
    lifetimeMs: MAX_TOKEN_LIFETIME_MS,
  });
  expect(created).toEqual({ status: 200, json: { id: expect.any(Number), rows: 1 } });
  const id = created.json["id"] as number;
  const downloaded = await call(sim, "enterpriseProxy/downloadApiToken", key, { id });
  expect(downloaded.status).toBe(200);
  return { id, key: downloaded.json["token"] as string };
};

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as Record<string, unknown>;

describe("the simulator's API tokens (SPEC §12)", () => {
  it("gives every key of the data a token: id, uuid, expiry, user, state downloaded, no use yet", async () => {
    await using sim = await startOrchestratorSimulator();
    const tokens = sim.tokens();
    expect(tokens).toHaveLength(12);
    expect(sim.tokenOf(PARTNER_KEY)).toMatchObject({
      id: 1,
      tokenUuid: "00000000-0000-4000-8000-000000000001",
      owner: { kind: "partner", enterpriseProxyId: 10 },
      expiration: new Date(GENERATED_TOKEN_EXPIRATION),
      createdForEnterpriseUserId: expect.any(Number),
      state: "downloaded",
      firstUsedAt: undefined,
      lastUsedAt: undefined,
    });
    expect(new Set(tokens.map((token) => token.id)).size).toBe(12);
  });

  it("makes, downloads ONCE and revokes a partner's token; the new key is a JWT with its uuid and exp, the revoked key is refused everywhere", async () => {
    let now = Date.parse("2026-11-27T00:00:00.000Z");
    await using sim = await startOrchestratorSimulator({ now: () => now });
    const { id, key } = await createAndDownload(sim);
    const made = sim.tokenOf(key);
    expect(made).toMatchObject({ id, state: "downloaded", name: "renewed" });
    expect(made?.createdForEnterpriseUserId).toBe(sim.tokenOf(PARTNER_KEY)?.createdForEnterpriseUserId);
    expect(claimsOf(key)).toMatchObject({ tokenUuid: made?.tokenUuid, exp: (now + MAX_TOKEN_LIFETIME_MS) / 1000 });
    expect(await identifies(sim, key)).toBe(true);

    const again = await call(sim, "enterpriseProxy/downloadApiToken", PARTNER_KEY, { id });
    expect(again.status).toBe(400);
    expect(JSON.stringify(again.json)).not.toContain(key);

    // The old key revoked with the new one: refused by every method.
    const oldId = sim.tokenOf(PARTNER_KEY)?.id;
    expect(await call(sim, "enterpriseProxy/revokeApiToken", key, { id: oldId })).toEqual({
      status: 200,
      json: { rows: 1 },
    });
    expect(sim.tokenOf(PARTNER_KEY)?.state).toBe("revoked");
    for (const method of ["enterpriseProxy/getEnterpriseProxyProperty", "enterpriseProxy/getApiTokens"] as const)
      expect(await call(sim, method, PARTNER_KEY)).toEqual({ status: 400, json: TOKEN_ERROR });
    // Revoking it again changes no row; the list shows it revoked.
    expect((await call(sim, "enterpriseProxy/revokeApiToken", key, { id: oldId })).json).toEqual({ rows: 0 });
    const listed = (await call(sim, "enterpriseProxy/getApiTokens", key)).json as unknown as Record<string, unknown>[];
    expect(listed.map(({ id: listedId, state, isRevoked }) => [listedId, state, isRevoked])).toEqual([
      [oldId, "REVOKED", true],
      [id, "ENABLED", false],
    ]);

    // Expired: refused too, by the simulator's clock.
    now += MAX_TOKEN_LIFETIME_MS + 1;
    expect(await identifies(sim, key)).toBe(false);
  });

  it("refuses a lifetime over 12 months, another partner's user, and another partner's token", async () => {
    await using sim = await startOrchestratorSimulator();
    const enterpriseUserId = sim.tokenOf(PARTNER_KEY)?.createdForEnterpriseUserId;
    for (const body of [
      { enterpriseUserId, name: "x", lifetimeMs: MAX_TOKEN_LIFETIME_MS + 1 },
      { enterpriseUserId: sim.tokenOf("sample-partner-key-2")?.createdForEnterpriseUserId, name: "x", lifetimeMs: DAY },
      { enterpriseUserId, lifetimeMs: DAY },
    ])
      expect((await call(sim, "enterpriseProxy/createApiToken", PARTNER_KEY, body)).status).toBe(400);
    const { id } = await createAndDownload(sim, "sample-partner-key-2");
    expect((await call(sim, "enterpriseProxy/revokeApiToken", PARTNER_KEY, { id })).status).toBe(400);
    expect(sim.tokens().find((token) => token.id === id)?.state).toBe("downloaded");
  });

  it("answers the privilege error to a key without the right to renew, and to the other kind of key", async () => {
    const sample = await loadSampleDataset();
    const data: Dataset = {
      ...sample,
      apiTokens: (sample.apiTokens ?? []).map((token) =>
        [PARTNER_KEY, CUSTOMER_KEY].includes(token.key) ? { ...token, renews: false } : token,
      ),
    };
    await using sim = await startOrchestratorSimulator({ data });
    const user = { enterpriseUserId: sim.tokenOf(PARTNER_KEY)?.createdForEnterpriseUserId, name: "x", lifetimeMs: DAY };
    for (const [method, key, body] of [
      ["enterpriseProxy/createApiToken", PARTNER_KEY, user],
      ["enterpriseProxy/downloadApiToken", PARTNER_KEY, { id: 1 }],
      ["enterpriseProxy/revokeApiToken", PARTNER_KEY, { id: 1 }],
      ["enterprise/refreshApiToken", CUSTOMER_KEY, { apiToken: CUSTOMER_KEY }],
      // A customer key may not make partner tokens, a partner key may not refresh (PROXY_TOKEN vs ENTERPRISE_TOKEN).
      ["enterpriseProxy/createApiToken", "sample-customer-key-2-1", user],
      ["enterprise/refreshApiToken", "sample-partner-key-2", { apiToken: "sample-partner-key-2" }],
    ] as const)
      expect(await call(sim, method, key, body), `${method} with ${key}`).toEqual({ status: 400, json: PRIVILEGE });
    expect(sim.tokens().every((token) => token.state === "downloaded")).toBe(true);
    expect(await identifies(sim, PARTNER_KEY)).toBe(true);
  });

  it.each([
    [false, "keeps working until its own expiry (the default)"],
    [true, "is revoked (the switch)"],
  ])(
    "refreshes a customer key: a new token of the same user for 12 months; with refreshRevokesPredecessor %s the old one %s",
    async (refreshRevokesPredecessor) => {
      const now = Date.parse("2026-11-27T00:00:00.000Z");
      await using sim = await startOrchestratorSimulator({
        now: () => now,
        ...(refreshRevokesPredecessor ? { refreshRevokesPredecessor } : {}),
      });
      const refreshed = await call(sim, "enterprise/refreshApiToken", CUSTOMER_KEY, { apiToken: CUSTOMER_KEY });
      expect(refreshed.status).toBe(200);
      const key = refreshed.json["token"] as string;
      expect(sim.tokenOf(key)).toMatchObject({
        state: "downloaded",
        refreshedFrom: sim.tokenOf(CUSTOMER_KEY)?.id,
        createdForEnterpriseUserId: sim.tokenOf(CUSTOMER_KEY)?.createdForEnterpriseUserId,
        expiration: new Date(now + MAX_TOKEN_LIFETIME_MS),
      });
      expect(claimsOf(key)["exp"]).toBe((now + MAX_TOKEN_LIFETIME_MS) / 1000);
      expect(await identifies(sim, key)).toBe(true);
      expect(await identifies(sim, CUSTOMER_KEY)).toBe(!refreshRevokesPredecessor);
      expect(sim.tokenOf(CUSTOMER_KEY)?.state).toBe(refreshRevokesPredecessor ? "revoked" : "downloaded");
    },
  );

  it("records each token's first and last use: the old key's last use comes before the new key's first", async () => {
    let now = 1_800_000_000_000;
    await using sim = await startOrchestratorSimulator({ now: () => now });
    await identifies(sim, CUSTOMER_KEY);
    now += 1000;
    const refreshed = await call(sim, "enterprise/refreshApiToken", CUSTOMER_KEY, { apiToken: CUSTOMER_KEY });
    now += 1000;
    await identifies(sim, refreshed.json["token"] as string);
    now += 1000;
    await identifies(sim, refreshed.json["token"] as string);
    const old = sim.tokenOf(CUSTOMER_KEY);
    const renewed = sim.tokenOf(refreshed.json["token"] as string);
    expect(old).toMatchObject({ firstUsedAt: new Date(1_800_000_000_000), lastUsedAt: new Date(1_800_000_001_000) });
    expect(renewed).toMatchObject({
      firstUsedAt: new Date(1_800_000_002_000),
      lastUsedAt: new Date(1_800_000_003_000),
    });
    expect(renewed?.uses).toBe(4); // two identifications of a customer key, two calls each
  });

  it("holds the next call of a method before it acts, counted, until released", async () => {
    await using sim = await startOrchestratorSimulator();
    const hold = sim.hold({ method: "enterpriseProxy/createApiToken" });
    const made = createAndDownload(sim);
    await hold.reached;
    expect(hold.held).toBe(1);
    expect(sim.calls.byMethod["enterpriseProxy/createApiToken"]).toBe(1);
    expect(sim.tokens()).toHaveLength(12); // not made yet
    // Other calls pass meanwhile.
    expect(await identifies(sim, PARTNER_KEY)).toBe(true);
    hold.release();
    await made;
    expect(sim.tokens()).toHaveLength(13);
    expect(sim.calls.byMethod["enterpriseProxy/downloadApiToken"]).toBe(1);
  });

  it("holds a call after it acts and before it answers (a token downloaded, its key not yet handed out), and calls of one key", async () => {
    await using sim = await startOrchestratorSimulator();
    const hold = sim.hold({ method: "enterpriseProxy/downloadApiToken", when: "after" });
    const made = createAndDownload(sim);
    await hold.reached;
    expect(sim.tokens().at(-1)?.state).toBe("downloaded");
    hold.release();
    const { key } = await made;

    const byKey = sim.hold({ key, times: 2 });
    const both = Promise.all([identifies(sim, key), identifies(sim, key)]);
    await byKey.reached;
    expect(await identifies(sim, PARTNER_KEY)).toBe(true);
    byKey.release();
    expect(await both).toEqual([true, true]);
  });

  it("drops a call held before it acts whose client went away (killed): nothing made", async () => {
    await using sim = await startOrchestratorSimulator();
    const hold = sim.hold({ method: "enterpriseProxy/createApiToken" });
    const gone = new AbortController();
    const body = JSON.stringify({
      enterpriseUserId: sim.tokenOf(PARTNER_KEY)?.createdForEnterpriseUserId,
      name: "x",
      lifetimeMs: DAY,
    });
    const request = fetch(`${sim.url}portal/rest/enterpriseProxy/createApiToken`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Token ${PARTNER_KEY}` },
      body,
      signal: gone.signal,
    }).catch(() => "aborted");
    await hold.reached;
    gone.abort();
    expect(await request).toBe("aborted");
    // Its client gone, the call is let go: no longer held.
    await vi.waitFor(() => expect(hold.held).toBe(0), { timeout: 30_000, interval: 20 });
    hold.release();
    await call(sim, "enterprise/getEnterprise", CUSTOMER_KEY);
    expect(sim.calls.byMethod["enterpriseProxy/createApiToken"]).toBe(1);
    expect(sim.tokens()).toHaveLength(12);
  });

  it("releases its holds when it stops", async () => {
    const sim = await startOrchestratorSimulator();
    const hold = sim.hold({ key: PARTNER_KEY });
    const pending = call(sim, "enterpriseProxy/getEnterpriseProxyProperty", PARTNER_KEY).catch(() => "dropped");
    await hold.reached;
    await sim.stop();
    expect(await pending).toBeDefined();
  });
});
