import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anAddBody,
  BASE,
  client,
  startHarness,
  startWiredService,
  TEST_KEYS,
  VIEWER,
  type Harness,
} from "./harness.js";

const CONNECTIONS = `${BASE}/connections`;
const MAX_FAILURES = 3;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { SDWAN_LOGIN_MAX_FAILURES: String(MAX_FAILURES) } });
  expect((await h.call("POST", CONNECTIONS, { body: anAddBody() })).status).toBe(200);
});
afterAll(async () => {
  await h[Symbol.asyncDispose]();
});

const check = (apiKey: unknown, user?: typeof VIEWER) =>
  h.call("POST", `${CONNECTIONS}/lab/key-check`, { body: { apiKey }, ...(user === undefined ? {} : { user }) });

describe("key drift without reading secrets (docs/interface.md §1)", () => {
  it("verbose validation shows a stable fingerprint of the stored key and when it was set; neither shows the key", async () => {
    const first = await h.call("GET", `${CONNECTIONS}/lab?verbose=true`);
    const { apiKeyFingerprint, apiKeySetAt } = first.json<{ apiKeyFingerprint: string; apiKeySetAt: string }>();
    expect(apiKeyFingerprint).toMatch(/^[\w-]{43}$/);
    expect(Date.parse(apiKeySetAt)).toBeLessThanOrEqual(Date.now());
    expect(first.text).not.toContain(TEST_KEYS.partner);
    expect((await h.call("GET", `${CONNECTIONS}/Lab?verbose=true`)).json()).toMatchObject({
      apiKeyFingerprint,
      apiKeySetAt,
    });
    expect(Object.keys((await h.call("GET", `${CONNECTIONS}/lab`)).json())).toEqual([
      "alias",
      "orchestratorUrl",
      "valid",
    ]);
  });

  // Regression: equal keys had equal fingerprints, so anyone could tell which connections share a key, and an admin
  // could store guesses on another connection (unthrottled, 575/s) and compare fingerprints: a key oracle.
  it("two connections with one key show different fingerprints (the embedded store, under the master key)", async () => {
    await using service = await startWiredService();
    const call = client(service.url);
    const fingerprint = async (alias: string) =>
      (await call("GET", `${CONNECTIONS}/${alias}?stored=true`)).json<{ apiKeyFingerprint: string }>()
        .apiKeyFingerprint;
    expect((await call("POST", CONNECTIONS, { body: anAddBody({ alias: "lab" }) })).status).toBe(200);
    expect(
      (
        await call("POST", `${CONNECTIONS}?force=true`, {
          body: anAddBody({ alias: "twin", apiKey: TEST_KEYS.customer }),
        })
      ).status,
    ).toBe(200);
    const lab = await fingerprint("lab");
    // The guess that is right, stored on another connection, tells nothing of lab's key.
    expect((await call("PUT", `${CONNECTIONS}/twin?force=true`, { body: { apiKey: TEST_KEYS.partner } })).status).toBe(
      200,
    );
    expect(await fingerprint("twin")).not.toBe(lab);
    expect(await fingerprint("LAB")).toBe(lab);
  });

  it("key-check answers whether a key is the stored one; a viewer may not ask; bad input is 400, an unknown alias 404", async () => {
    const matching = await check(TEST_KEYS.partner);
    expect([matching.status, matching.json()]).toEqual([200, { matches: true }]);
    expect(matching.text).not.toContain(TEST_KEYS.partner);
    expect((await check(TEST_KEYS.partner, VIEWER)).status).toBe(403);
    expect((await check("")).status).toBe(400);
    expect(
      (await h.call("POST", `${CONNECTIONS}/lab/key-check`, { body: { apiKey: TEST_KEYS.partner, alias: "lab" } }))
        .status,
    ).toBe(400);
    expect(
      (await h.call("POST", `${CONNECTIONS}/ghost/key-check`, { body: { apiKey: TEST_KEYS.partner } })).status,
    ).toBe(404);
    expect((await h.call("GET", `${CONNECTIONS}/lab/key-check`)).status).toBe(405);
    expect(h.logs.text()).not.toContain(TEST_KEYS.partner);
  });

  it("after too many checks that do not match, the client is refused (429, Retry-After) even with the right key; logins still work", async () => {
    for (let i = 0; i < MAX_FAILURES; i += 1) expect((await check(`wrong-${i}`)).json()).toEqual({ matches: false });
    // The count is kept asynchronously: the refusal follows within moments.
    let refused = await check(TEST_KEYS.partner);
    for (let i = 0; i < 20 && refused.status !== 429; i += 1) {
      await new Promise((done) => setTimeout(done, 25));
      refused = await check(TEST_KEYS.partner);
    }
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await h.call("GET", CONNECTIONS)).status).toBe(200);
  });
});
