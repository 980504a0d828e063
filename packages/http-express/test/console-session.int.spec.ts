import { randomBytes } from "node:crypto";
import { rename, writeFile } from "node:fs/promises";
import { createManualClock } from "@sdwan-connections/core/testing";
import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { ADMIN, anAddBody, BASE, OPERATOR, startHarness, VIEWER } from "./harness.js";

interface Session {
  readonly user: string;
  readonly role: string;
  readonly token: string;
  readonly expiresAt: string;
}

const bearer = (token: string) => ({ user: null, headers: { authorization: `Bearer ${token}` } });

describe("console sessions: GET /session (docs/interface.md §5)", () => {
  it("gives a token for a password, which then stands for it (role included) and never starts another session", async () => {
    await using h = await startHarness();
    const answer = await h.call("GET", `${BASE}/session`, { user: VIEWER });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const session = answer.json<Session>();
    expect(session).toMatchObject({ user: VIEWER.name, role: "viewer" });
    expect(session.token).toMatch(/^sdc_/);
    expect(session.token).not.toContain(VIEWER.password);
    expect(session.token).not.toContain(Buffer.from(VIEWER.password).toString("base64url"));
    expect(Date.parse(session.expiresAt) - Date.now()).toBeGreaterThan(7.9 * 3600_000);

    expect((await h.call("GET", `${BASE}/me`, bearer(session.token))).json()).toEqual({
      user: VIEWER.name,
      role: "viewer",
    });
    expect((await h.call("GET", `${BASE}/connections`, bearer(session.token))).status).toBe(200);
    expect(
      (await h.call("POST", `${BASE}/connections?force=true`, { ...bearer(session.token), body: anAddBody() })).status,
    ).toBe(403);
    expect((await h.call("GET", `${BASE}/session`, bearer(session.token))).status).toBe(403);
    const admin = (await h.call("GET", `${BASE}/session`)).json<Session>();
    expect(
      (await h.call("POST", `${BASE}/connections?force=true`, { ...bearer(admin.token), body: anAddBody() })).status,
    ).toBe(200);
    expect((await h.call("POST", `${BASE}/session`)).status).toBe(405);
  });

  it("refuses a forged, altered or expired token (401, and the failure says nothing of the token)", async () => {
    const clock = createManualClock(Date.now());
    await using h = await startHarness({ clock });
    const { token } = (await h.call("GET", `${BASE}/session`)).json<Session>();
    const [expiry, name, signature] = token.slice(4).split(".") as [string, string, string];
    const forged = [
      `sdc_${Number(expiry) + 3600_000}.${name}.${signature}`,
      `sdc_${expiry}.${Buffer.from(OPERATOR.name).toString("base64url")}.${signature}`,
      `sdc_${expiry}.${name}.${randomBytes(32).toString("base64url")}`,
      "sdc_garbage",
    ];
    for (const attempt of forged) {
      const refused = await h.call("GET", `${BASE}/me`, bearer(attempt));
      expect(refused.status, attempt).toBe(401);
      expect(refused.text).not.toContain(attempt);
    }
    expect((await h.call("GET", `${BASE}/me`, bearer(token))).status).toBe(200);
    clock.advance(8 * 3600_000);
    expect((await h.call("GET", `${BASE}/me`, bearer(token))).status).toBe(401);
  });

  it("is accepted by another instance sharing SDWAN_MASTER_KEY (as by a restarted one), by no other", async () => {
    const key = randomBytes(32).toString("base64");
    await using a = await startHarness({ env: { SDWAN_MASTER_KEY: key } });
    await using b = await startHarness({ env: { SDWAN_MASTER_KEY: key } });
    await using other = await startHarness({ env: { SDWAN_MASTER_KEY: randomBytes(32).toString("base64") } });
    await using keyless = await startHarness();
    const { token } = (await a.call("GET", `${BASE}/session`)).json<Session>();
    expect((await b.call("GET", `${BASE}/me`, bearer(token))).json()).toEqual({ user: ADMIN.name, role: "admin" });
    expect((await other.call("GET", `${BASE}/me`, bearer(token))).status).toBe(401);
    expect((await keyless.call("GET", `${BASE}/me`, bearer(token))).status).toBe(401);
  });

  it("ends a removed user's sessions when the user file changes", async () => {
    await using h = await startHarness();
    const { token } = (await h.call("GET", `${BASE}/session`, { user: OPERATOR })).json<Session>();
    expect((await h.call("GET", `${BASE}/me`, bearer(token))).status).toBe(200);
    const htpasswd = `${h.dir}/users.htpasswd`;
    await writeFile(`${htpasswd}.new`, `${VIEWER.name}:${bcrypt.hashSync(VIEWER.password, 4)}\n`);
    await rename(`${htpasswd}.new`, htpasswd);
    await expect
      .poll(async () => (await h.call("GET", `${BASE}/me`, bearer(token))).status, { timeout: 5_000, interval: 200 })
      .toBe(401);
  });
});
