import { createPublicKey, generateKeyPairSync } from "node:crypto";
import { SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ADMIN, anAddBody, BASE, startHarness, type Harness, type Reply } from "./harness.js";
import {
  ADMIN_GROUP,
  AUDIENCE,
  OTHER_RESOURCE,
  startTestProvider,
  VIEWER_GROUP,
  type TestProvider,
} from "./oidc-provider.js";

const CONNECTIONS = `${BASE}/connections`;

const oidcEnv = (issuer: string) => ({
  SDWAN_OIDC_ISSUER: issuer,
  SDWAN_OIDC_AUDIENCE: AUDIENCE,
  SDWAN_OIDC_ADMIN_GROUPS: ADMIN_GROUP,
  SDWAN_OIDC_VIEWER_GROUPS: VIEWER_GROUP,
  SDWAN_OIDC_CLIENT_ID: "sdwan-console",
});

const bearer = (token: string) => ({ user: null, headers: { authorization: `Bearer ${token}` } });

/** A 401 for a refused token: both challenges, the bearer one with invalid_token, the reason in the detail, never the token. */
const expectRefusedToken = (reply: Reply, token: string, reason: RegExp): void => {
  expect(reply.status).toBe(401);
  const challenge = reply.headers.get("www-authenticate") ?? "";
  expect(challenge).toContain('Basic realm="sdwan"');
  expect(challenge).toContain('Bearer realm="sdwan", error="invalid_token"');
  expect(reply.json<{ detail: string }>().detail).toMatch(reason);
  expect(reply.text).not.toContain(token);
  const signature = token.split(".")[2];
  if (signature !== undefined && signature !== "") expect(reply.text).not.toContain(signature);
};

/** A token claiming to come from `issuer`, for the forged cases only. */
const claimsOf = (issuer: string, extra: Record<string, unknown> = {}) => ({
  iss: issuer,
  aud: AUDIENCE,
  sub: "mallory",
  groups: [ADMIN_GROUP],
  ...extra,
});

describe("bearer tokens from an OpenID provider (SPEC §11)", () => {
  let provider: TestProvider;
  let foreign: TestProvider;
  beforeAll(async () => {
    [provider, foreign] = await Promise.all([startTestProvider(), startTestProvider()]);
  });
  afterAll(async () => {
    await Promise.all([provider.close(), foreign.close()]);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const withProvider = (): Promise<Harness> => startHarness({ env: oidcEnv(provider.issuer) });

  it("admits the provider's tokens: groups give the role, the principal oidc:NAME is the audit actor", async () => {
    await using h = await withProvider();
    const ann = await provider.token("ann");
    expect(decodeProtectedHeader(ann).alg).toBe("RS256");
    expect((await h.call("GET", `${BASE}/me`, bearer(ann))).json()).toEqual({ user: "oidc:ann", role: "admin" });
    expect((await h.call("POST", `${CONNECTIONS}?force=true`, { ...bearer(ann), body: anAddBody() })).status).toBe(200);

    const vic = await provider.token("vic");
    expect((await h.call("GET", `${BASE}/me`, bearer(vic))).json()).toEqual({ user: "oidc:vic", role: "viewer" });
    expect((await h.call("GET", CONNECTIONS, bearer(vic))).json()).toEqual([
      { alias: "Lab", orchestratorUrl: "https://orchestrator.example.net/" },
    ]);
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`, bearer(vic))).status).toBe(403);

    const audit = (await h.call("GET", `${BASE}/audit`)).json<{ entries: { action: string; actor: string }[] }>();
    expect(audit.entries.map(({ action, actor }) => ({ action, actor }))).toEqual([
      { action: "forbidden", actor: "oidc:vic" },
      { action: "add", actor: "oidc:ann" },
    ]);
  });

  it("a user in no admin or viewer group reads nothing: empty lists, every connection unknown, everything else 403", async () => {
    await using h = await withProvider();
    expect((await h.call("POST", `${CONNECTIONS}?force=true`, { body: anAddBody() })).status).toBe(200);
    const nobody = await provider.token("nobody");
    expect((await h.call("GET", `${BASE}/me`, bearer(nobody))).json()).toEqual({ user: "oidc:nobody", role: null });
    expect((await h.call("GET", CONNECTIONS, bearer(nobody))).json()).toEqual([]);
    expect((await h.call("GET", `${BASE}/health/connections`, bearer(nobody))).json()).toMatchObject({
      connections: [],
    });
    // An alias it may not read answers exactly as an unknown one does (here: to an admin once it is deleted).
    const hidden = await h.call("GET", `${CONNECTIONS}/lab?stored=true`, bearer(nobody));
    expect(hidden.status).toBe(404);
    expect((await h.call("GET", `${BASE}/partner/lab/customers`, bearer(nobody))).text).toBe(hidden.text);
    expect((await h.call("PUT", `${CONNECTIONS}/lab`, { ...bearer(nobody), body: anAddBody() })).text).toBe(
      hidden.text,
    );
    expect((await h.call("GET", `${CONNECTIONS}/${"x".repeat(300)}`, bearer(nobody))).status).toBe(400);
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`, bearer(nobody))).status).toBe(404);
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`)).status).toBe(204);
    const unknown = await h.call("GET", `${CONNECTIONS}/lab?stored=true`);
    expect(unknown.status).toBe(404);
    expect(hidden.text).toBe(unknown.text);
    expect((await h.call("POST", CONNECTIONS, { ...bearer(nobody), body: anAddBody({ alias: "Other" }) })).status).toBe(
      403,
    );
    expect((await h.call("POST", CONNECTIONS, { ...bearer(nobody), body: anAddBody() })).status).toBe(403);
    expect((await h.call("GET", `${BASE}/audit`, bearer(nobody))).status).toBe(403);
  });

  it("refuses a token for another audience, naming the audience", async () => {
    await using h = await withProvider();
    const token = await provider.token("ann", OTHER_RESOURCE);
    expect(decodeJwt(token).aud).toBe("other-service");
    expectRefusedToken(await h.call("GET", CONNECTIONS, bearer(token)), token, /audience/);
  });

  it("refuses another provider's token (another issuer, other keys), and one signed by a key the provider never had", async () => {
    await using h = await withProvider();
    const theirs = await foreign.token("ann");
    expectRefusedToken(await h.call("GET", CONNECTIONS, bearer(theirs)), theirs, /issuer/);
    // Claiming our issuer and a kid it publishes, signed with another key.
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const forged = await new SignJWT(claimsOf(provider.issuer))
      .setProtectedHeader({ alg: "RS256", kid: provider.signingKid() })
      .setExpirationTime("5m")
      .sign(privateKey);
    expectRefusedToken(await h.call("GET", CONNECTIONS, bearer(forged)), forged, /signature does not verify/);
    const unknownKid = await new SignJWT(claimsOf(provider.issuer))
      .setProtectedHeader({ alg: "RS256", kid: "not-published" })
      .setExpirationTime("5m")
      .sign(privateKey);
    expectRefusedToken(
      await h.call("GET", CONNECTIONS, bearer(unknownKid)),
      unknownKid,
      /no key the provider publishes/,
    );
  });

  it("refuses alg none and HS256 keyed with the provider's public key (asymmetric algorithms only)", async () => {
    await using h = await withProvider();
    const none = new UnsecuredJWT(claimsOf(provider.issuer)).setExpirationTime("5m").encode();
    expectRefusedToken(await h.call("GET", CONNECTIONS, bearer(none)), none, /algorithm/);
    const jwks = (await (await fetch(`${provider.issuer}/jwks`)).json()) as { keys: Record<string, string>[] };
    const publicPem = createPublicKey({ key: jwks.keys[0] as never, format: "jwk" }).export({
      type: "spki",
      format: "pem",
    });
    const hs256 = await new SignJWT(claimsOf(provider.issuer))
      .setProtectedHeader({ alg: "HS256", kid: provider.signingKid() })
      .setExpirationTime("5m")
      .sign(Buffer.from(publicPem));
    expectRefusedToken(await h.call("GET", CONNECTIONS, bearer(hs256)), hs256, /algorithm/);
    expectRefusedToken(await h.call("GET", CONNECTIONS, bearer("not-a-jwt")), "not-a-jwt", /well-formed/);
  });

  // Issue 36: an unknown critical header was reported as "algorithm not allowed".
  it("refuses a token whose crit header names an extension it does not know, saying so", async () => {
    await using h = await withProvider();
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const critical = await new SignJWT(claimsOf(provider.issuer))
      .setProtectedHeader({ alg: "RS256", kid: provider.signingKid(), crit: ["x-unknown"], "x-unknown": true })
      .setExpirationTime("5m")
      .sign(privateKey, { crit: { "x-unknown": true } });
    const reply = await h.call("GET", CONNECTIONS, bearer(critical));
    expectRefusedToken(reply, critical, /crit header names an extension/);
    expect(reply.json<{ detail: string }>().detail).not.toMatch(/algorithm/);
  });

  it("accepts a token up to 30 s past its expiry, not after, and says it expired", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    await using h = await withProvider();
    const late = await provider.token("ann");
    const expired = await provider.token("ann");
    const exp = decodeJwt(late).exp as number;
    vi.setSystemTime(exp * 1000 + 20_000);
    expect((await h.call("GET", CONNECTIONS, bearer(late))).status).toBe(200);
    vi.setSystemTime(exp * 1000 + 31_000);
    expectRefusedToken(await h.call("GET", CONNECTIONS, bearer(expired)), expired, /expired/);
  });

  it("a token naming an unknown kid fetches the keys again (once per cooldown): the provider's rotation is followed, forged kids cost one fetch", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    await using h = await withProvider();
    expect((await h.call("GET", CONNECTIONS, bearer(await provider.token("ann")))).status).toBe(200);
    const fetchesBefore = provider.jwksFetches();
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    for (let i = 0; i < 20; i += 1) {
      const forged = await new SignJWT(claimsOf(provider.issuer))
        .setProtectedHeader({ alg: "RS256", kid: `forged-${i}` })
        .setExpirationTime("5m")
        .sign(privateKey);
      expect((await h.call("GET", CONNECTIONS, bearer(forged))).status).toBe(401);
    }
    expect(provider.jwksFetches() - fetchesBefore).toBeLessThanOrEqual(1);

    await provider.rotateKeys();
    vi.setSystemTime(Date.now() + 31_000);
    const rotated = await provider.token("ann");
    expect(decodeProtectedHeader(rotated).kid).toBe(provider.signingKid());
    expect((await h.call("GET", `${BASE}/me`, bearer(rotated))).json()).toEqual({ user: "oidc:ann", role: "admin" });
  });

  it("the provider unreachable with no key cached: 503 with Retry-After for bearer tokens, while Basic keeps working", async () => {
    const gone = await startTestProvider();
    const token = await gone.token("ann");
    await gone.close();
    await using h = await startHarness({ env: oidcEnv(gone.issuer) });
    const refused = await h.call("GET", CONNECTIONS, bearer(token));
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.text).not.toContain(token);
    expect((await h.call("GET", CONNECTIONS, { user: ADMIN })).status).toBe(200);
  });

  it("with its keys cached, the provider going down stops nobody: old keys keep checking tokens, a failed refresh included", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const leaving = await startTestProvider();
    const [first, second, third] = await Promise.all([
      leaving.token("ann"),
      leaving.token("ann"),
      leaving.token("vic"),
    ]);
    await using h = await startHarness({ env: oidcEnv(leaving.issuer) });
    expect((await h.call("GET", CONNECTIONS, bearer(first))).status).toBe(200);
    await leaving.close();
    // Past the keys' refresh age (10 min), within the tokens' life and its tolerance: the refresh fails in the background.
    vi.setSystemTime(Date.now() + 605_000);
    expect((await h.call("GET", CONNECTIONS, bearer(second))).status).toBe(200);
    expect((await h.call("GET", `${BASE}/me`, bearer(third))).json()).toEqual({ user: "oidc:vic", role: "viewer" });
  });

  it("every 401 offers both challenges; bearer tokens never count as failed logins", async () => {
    await using h = await startHarness({ env: { ...oidcEnv(provider.issuer), SDWAN_LOGIN_MAX_FAILURES: "1" } });
    const none = await h.call("GET", CONNECTIONS, { user: null });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Basic realm="sdwan", charset="UTF-8", Bearer realm="sdwan"');
    const console = await h.call("GET", CONNECTIONS, { user: null, headers: { "x-requested-with": "fetch" } });
    expect(console.headers.get("www-authenticate")).toBe('Bearer realm="sdwan"');
    for (let i = 0; i < 5; i += 1) expect((await h.call("GET", CONNECTIONS, bearer(`x.y.z${i}`))).status).toBe(401);
    expect((await h.call("GET", CONNECTIONS, { user: ADMIN })).status).toBe(200);
  });

  it("the console's session token (GET /session) still signs in beside the provider's tokens", async () => {
    await using h = await withProvider();
    const session = await h.call("GET", `${BASE}/session`, { user: ADMIN });
    expect(session.status).toBe(200);
    const { token } = session.json() as { token: string };
    expect((await h.call("GET", CONNECTIONS, bearer(token))).status).toBe(200);
    expect((await h.call("GET", CONNECTIONS, bearer(`${token.slice(0, -2)}AA`))).status).toBe(401);
  });

  it("GET /auth/config tells the console the provider and its client, without credentials", async () => {
    await using h = await withProvider();
    const reply = await h.call("GET", `${BASE}/auth/config`, { user: null });
    expect(reply.status).toBe(200);
    expect(reply.json()).toEqual({
      oidc: { issuer: provider.issuer, clientId: "sdwan-console", scopes: ["openid", "profile"] },
    });
  });

  it("with nothing configured, behaves as before: /auth/config says null and a bearer token is no credential", async () => {
    await using h = await startHarness();
    expect((await h.call("GET", `${BASE}/auth/config`, { user: null })).json()).toEqual({ oidc: null });
    const token = await provider.token("ann");
    const refused = await h.call("GET", CONNECTIONS, bearer(token));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Basic realm="sdwan", charset="UTF-8"');
    // Issue 36: it was told "Valid HTTP Basic credentials are required.": the words name the scheme it used.
    expect(refused.json<{ detail: string }>().detail).toBe(
      "The bearer token was refused: it is not a service token (sdw_…), and no OpenID provider is configured.",
    );
    const none = await h.call("GET", CONNECTIONS, { user: null });
    expect(none.json<{ detail: string }>().detail).toBe(
      "Credentials are required: HTTP Basic credentials or a service token (Bearer sdw_…).",
    );
    const basic = await h.call("GET", CONNECTIONS, { user: { name: ADMIN.name, password: "wrong" } });
    expect(basic.json<{ detail: string }>().detail).toBe("Valid HTTP Basic credentials are required: these are not.");
  });
});
