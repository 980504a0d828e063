import { createHash } from "node:crypto";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { createManualClock } from "@sdwan-connections/core/testing";
import { describe, expect, it } from "vitest";
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
  testOrchestrator,
  VIEWER,
  type Harness,
} from "./harness.js";

const IDS = `${BASE}/tokens`;
const DAY = 24 * 3600_000;

interface Issued {
  readonly id: string;
  readonly name: string;
  readonly role: string;
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
  readonly createdBy: string;
  readonly createdAt: string;
  readonly token: string;
}

const bearer = (token: string) => ({ user: null, headers: { authorization: `Bearer ${token}` } });
const create = async (h: Pick<Harness, "call">, body: Record<string, unknown>): Promise<Issued> => {
  const answer = await h.call("POST", IDS, { body });
  expect(answer.status, answer.text).toBe(201);
  expect(answer.headers.get("location")).toBe(`${IDS}/${answer.json<Issued>().id}`);
  return answer.json<Issued>();
};
// A verified token is trusted for half a second at most: past that, the next request asks the store.
const pastTheCache = () => new Promise((resolve) => setTimeout(resolve, 600));
// The details docs/interface.md ("Service tokens") gives.
const UNKNOWN = "The service token was refused: unknown, revoked or expired.";
const MALFORMED = "The service token was refused: it is not a service token (sdw_ and 43 base64url characters).";
const expectRefused = async (h: Pick<Harness, "call">, token: string, detail = UNKNOWN) => {
  const refused = await h.call("GET", `${BASE}/me`, bearer(token));
  expect(refused.status).toBe(401);
  expect(refused.json<{ detail: string }>().detail).toBe(detail);
  expect(refused.headers.get("www-authenticate")).toContain('Bearer realm="sdwan", error="invalid_token"');
  expect(refused.text).not.toContain(token);
  expect(refused.text).not.toContain(token.slice(4));
};

describe('service tokens (SPEC §11, docs/interface.md "Service tokens")', () => {
  it("creates a token shown once (sdw_ and 43 base64url characters), lists it without the secret, and it acts as token:NAME with its role", async () => {
    await using h = await startHarness();
    const ci = await create(h, { name: "ci", expiresInDays: 30, role: "admin" });
    expect(ci.token).toMatch(/^sdw_[A-Za-z0-9_-]{43}$/);
    expect(ci).toMatchObject({ name: "ci", role: "admin", lastUsedAt: null, createdBy: ADMIN.name });
    expect(Date.parse(ci.expiresAt) - Date.now()).toBeGreaterThan(29.9 * DAY);
    const poller = await create(h, { name: "poller", expiresInDays: 1 });
    expect(poller.role).toBe("viewer");
    expect(poller.token).not.toBe(ci.token);

    const list = await h.call("GET", IDS);
    expect(list.status).toBe(200);
    expect(list.json()).toEqual([
      {
        id: ci.id,
        name: "ci",
        role: "admin",
        expiresAt: ci.expiresAt,
        lastUsedAt: null,
        createdBy: ADMIN.name,
        createdAt: ci.createdAt,
      },
      {
        id: poller.id,
        name: "poller",
        role: "viewer",
        expiresAt: poller.expiresAt,
        lastUsedAt: null,
        createdBy: ADMIN.name,
        createdAt: poller.createdAt,
      },
    ]);

    expect((await h.call("GET", `${BASE}/me`, bearer(ci.token))).json()).toEqual({ user: "token:ci", role: "admin" });
    expect(
      (await h.call("POST", `${BASE}/connections?force=true`, { ...bearer(ci.token), body: anAddBody() })).status,
    ).toBe(200);
    expect((await h.call("GET", `${BASE}/connections`, bearer(poller.token))).status).toBe(200);
    expect((await h.call("DELETE", `${BASE}/connections/lab`, bearer(poller.token))).status).toBe(403);
    const audit = (await h.call("GET", `${BASE}/audit?alias=lab`)).json<{
      entries: { action: string; actor: string }[];
    }>();
    expect(audit.entries.map(({ action, actor }) => `${action} ${actor}`)).toEqual([
      "forbidden token:poller",
      "add token:ci",
    ]);
    // An admin token manages tokens; a viewer (token or user) may not even list them.
    expect((await h.call("GET", IDS, bearer(ci.token))).status).toBe(200);
    expect((await h.call("GET", IDS, bearer(poller.token))).status).toBe(403);
    expect((await h.call("GET", IDS, { user: VIEWER })).status).toBe(403);
  });

  it("decodes the bodies: 400 naming each bad or unknown field (a bad grant included), 409 for a name taken, 404 for an unknown id", async () => {
    await using h = await startHarness();
    const bad = async (body: unknown, fields: string[]) => {
      const answer = await h.call("POST", IDS, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(
        answer
          .json<{ errors: { field: string }[] }>()
          .errors.map(({ field }) => field)
          .sort(),
      ).toEqual(fields);
    };
    await bad({ name: "ci" }, ["expiresInDays"]);
    await bad({ name: "ci", expiresInDays: 0 }, ["expiresInDays"]);
    await bad({ name: "ci", expiresInDays: 366 }, ["expiresInDays"]);
    await bad({ name: "ci", expiresInDays: 1.5 }, ["expiresInDays"]);
    await bad({ name: "ci", expiresInDays: 1, role: "root" }, ["role"]);
    await bad({ name: "", expiresInDays: 1 }, ["name"]);
    await bad({ name: "a b", expiresInDays: 1 }, ["name"]);
    await bad({ name: "ci", expiresInDays: 1, grants: "*" }, ["grants"]);
    await bad({ name: "ci", expiresInDays: 1, grants: [{ pattern: "lab?", verb: "read" }] }, ["grants.pattern"]);
    await bad({ name: "ci", expiresInDays: 1, grants: [{ subject: "user:x", pattern: "lab", verb: "read" }] }, [
      "grants.subject",
    ]);
    await bad({ name: "ci", expiresInDays: 1, shadow: true }, ["shadow"]);
    await bad([], ["body"]);
    expect((await h.call("GET", IDS)).json()).toEqual([]);

    const ci = await create(h, { name: "ci", expiresInDays: 1 });
    const taken = await h.call("POST", IDS, { body: { name: "ci", expiresInDays: 2 } });
    expect(taken.status).toBe(409);
    expect(taken.text).not.toContain(ci.token);
    expect((await h.call("POST", `${IDS}/${ci.id}/renew`, { body: { overlapHours: -1 } })).status).toBe(400);
    expect((await h.call("POST", `${IDS}/${ci.id}/renew`, { body: { overlapHours: 1, extra: 1 } })).status).toBe(400);
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-an-id"]) {
      expect((await h.call("DELETE", `${IDS}/${id}`)).status).toBe(404);
      expect((await h.call("POST", `${IDS}/${id}/renew`)).status).toBe(404);
    }
    expect((await h.call("PUT", IDS, { body: {} })).status).toBe(405);
  });

  it("refuses an unknown, malformed, revoked or expired token with 401 and the Bearer invalid_token challenge, never echoing it", async () => {
    const clock = createManualClock(Date.now());
    await using h = await startHarness({ clock });
    const soon = await create(h, { name: "soon", expiresInDays: 1 });
    const revoked = await create(h, { name: "revoked", expiresInDays: 1 });
    expect((await h.call("GET", `${BASE}/me`, bearer(revoked.token))).status).toBe(200);
    await expectRefused(h, `sdw_${"A".repeat(43)}`);
    await expectRefused(h, "sdw_short", MALFORMED);
    await expectRefused(h, `${revoked.token}x`, MALFORMED);

    expect((await h.call("DELETE", `${IDS}/${revoked.id}`)).status).toBe(204);
    await expectRefused(h, revoked.token);
    expect((await h.call("DELETE", `${IDS}/${revoked.id}`)).status).toBe(404);
    expect((await h.call("GET", IDS)).json<Issued[]>().map(({ name }) => name)).toEqual(["soon"]);

    expect((await h.call("GET", `${BASE}/me`, bearer(soon.token))).status).toBe(200);
    clock.advance(DAY);
    await expectRefused(h, soon.token);
    // Still listed (expired), so an operator sees what to renew or revoke.
    expect((await h.call("GET", IDS)).json<Issued[]>().map(({ name }) => name)).toEqual(["soon"]);
  });

  it("renews with overlap: a new secret for the token's lifetime from now; the old one works for overlapHours (24 by default), then stops", async () => {
    const clock = createManualClock(Date.now());
    await using h = await startHarness({ clock });
    const ci = await create(h, { name: "ci", expiresInDays: 10 });
    clock.advance(9 * DAY);
    const renewal = await h.call("POST", `${IDS}/${ci.id}/renew`);
    expect(renewal.status).toBe(200);
    expect(renewal.headers.get("cache-control")).toBe("no-store");
    const renewed = renewal.json<Issued>();
    expect(renewed).toMatchObject({ id: ci.id, name: "ci", role: "viewer" });
    expect(renewed.token).not.toBe(ci.token);
    expect(Date.parse(renewed.expiresAt)).toBe(clock.now() + 10 * DAY);
    // The old secret's overlap (24 h) would outlive its own expiry (1 day left): it ends then.
    clock.advance(DAY - 1000);
    expect((await h.call("GET", `${BASE}/me`, bearer(ci.token))).json()).toEqual({ user: "token:ci", role: "viewer" });
    clock.advance(1000);
    await pastTheCache();
    await expectRefused(h, ci.token);
    expect((await h.call("GET", `${BASE}/me`, bearer(renewed.token))).status).toBe(200);

    const again = (await h.call("POST", `${IDS}/${ci.id}/renew`, { body: { overlapHours: 2 } })).json<Issued>();
    clock.advance(2 * 3600_000 - 1000);
    expect((await h.call("GET", `${BASE}/me`, bearer(renewed.token))).status).toBe(200);
    expect((await h.call("GET", `${BASE}/me`, bearer(again.token))).status).toBe(200);
    clock.advance(1000);
    await pastTheCache();
    await expectRefused(h, renewed.token);
    expect((await h.call("POST", `${IDS}/${ci.id}/renew`, { body: { overlapHours: 0 } })).status).toBe(200);
    await expectRefused(h, again.token);
  });

  it("audits creating, renewing and revoking a token as the admin's changes: its name and role, never a secret", async () => {
    await using h = await startHarness();
    const ci = await create(h, { name: "ci", expiresInDays: 30, role: "admin" });
    const scoped = await create(h, { name: "scoped", expiresInDays: 5, grants: [{ pattern: "lab-*", verb: "use" }] });
    const renewed = (await h.call("POST", `${IDS}/${ci.id}/renew`)).json<Issued>();
    expect((await h.call("DELETE", `${IDS}/${scoped.id}`)).status).toBe(204);
    // What changed nothing is not audited: an unknown token's renewal or revocation.
    expect((await h.call("POST", `${IDS}/${scoped.id}/renew`)).status).toBe(404);
    expect((await h.call("DELETE", `${IDS}/${scoped.id}`)).status).toBe(404);
    const audit = await h.call("GET", `${BASE}/audit`);
    expect(audit.status).toBe(200);
    type Entry = { action: string; actor: string; alias: string | null; detail: string | null; outcome: string };
    expect(
      audit
        .json<{ entries: Entry[] }>()
        .entries.filter(({ action }) => action.startsWith("token-"))
        .map(({ action, actor, alias, detail, outcome }) => ({ action, actor, alias, detail, outcome })),
    ).toEqual([
      { action: "token-revoke", actor: ADMIN.name, alias: null, detail: "token:scoped no-role", outcome: "succeeded" },
      { action: "token-renew", actor: ADMIN.name, alias: null, detail: "token:ci admin", outcome: "succeeded" },
      { action: "token-create", actor: ADMIN.name, alias: null, detail: "token:scoped no-role", outcome: "succeeded" },
      { action: "token-create", actor: ADMIN.name, alias: null, detail: "token:ci admin", outcome: "succeeded" },
    ]);
    for (const secret of [ci.token, scoped.token, renewed.token]) {
      expect(audit.text).not.toContain(secret);
      expect(audit.text).not.toContain(secret.slice(4));
      expect(audit.text).not.toContain(createHash("sha256").update(secret).digest("hex"));
    }
  });

  it("records the last use at most once a minute", async () => {
    const clock = createManualClock(Date.now());
    await using h = await startHarness({ clock });
    const ci = await create(h, { name: "ci", expiresInDays: 1 });
    const lastUsed = async () => (await h.call("GET", IDS)).json<Issued[]>()[0]?.lastUsedAt;
    const firstUse = new Date(clock.now()).toISOString();
    await h.call("GET", `${BASE}/me`, bearer(ci.token));
    await expect.poll(lastUsed).toBe(firstUse);
    clock.advance(59_000);
    await pastTheCache();
    await h.call("GET", `${BASE}/me`, bearer(ci.token));
    await pastTheCache();
    expect(await lastUsed()).toBe(firstUse);
    clock.advance(1_000);
    await h.call("GET", `${BASE}/me`, bearer(ci.token));
    await expect.poll(lastUsed).toBe(new Date(clock.now()).toISOString());
  });

  it("never goes through the failed-login count: many wrong tokens leave Basic and good tokens working", async () => {
    await using h = await startHarness({ env: { SDWAN_LOGIN_MAX_FAILURES: "3" } });
    const ci = await create(h, { name: "ci", expiresInDays: 1 });
    for (let i = 0; i < 10; i += 1) await expectRefused(h, `sdw_${String(i).padStart(43, "B")}`);
    expect((await h.call("GET", `${BASE}/me`)).status).toBe(200);
    expect((await h.call("GET", `${BASE}/me`, bearer(ci.token))).status).toBe(200);
  });

  it("never shows a secret again: not in any other answer, not in a log line (trace level)", async () => {
    await using h = await startHarness({ env: { SDWAN_LOG_LEVEL: "trace" } });
    const creation = await h.call("POST", IDS, { body: { name: "ci", expiresInDays: 1, role: "admin" } });
    const { token, id } = creation.json<Issued>();
    const renewal = await h.call("POST", `${IDS}/${id}/renew`, { body: { overlapHours: 1 } });
    const renewed = renewal.json<Issued>().token;
    const replies = [
      await h.call("GET", IDS),
      await h.call("GET", `${BASE}/me`, bearer(token)),
      await h.call("GET", `${BASE}/me`, bearer(renewed)),
      await h.call("POST", `${BASE}/connections?force=true`, { ...bearer(renewed), body: anAddBody() }),
      await h.call("GET", `${BASE}/audit`),
      await h.call("GET", `${BASE}/me`, bearer(`${renewed}0`)),
      await h.call("DELETE", `${IDS}/${id}`),
      await h.call("GET", `${BASE}/me`, bearer(renewed)),
      await h.call("GET", "/metrics", { user: null }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 50));
    const everything = [
      ...replies.map((reply) => `${[...reply.headers].join("\n")}\n${reply.text}`),
      h.logs.text(),
    ].join("\n");
    for (const secret of [token, renewed]) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(secret.slice(4));
    }
    expect(creation.text).toContain(token);
  });

  it("lowdb: keeps only the SHA-256 of a secret in the data directory, and a restart keeps the tokens", async () => {
    const dir = await makeDataDir();
    const start = () =>
      startService(
        testConfig({ SDWAN_DATA_DIR: dir, SDWAN_ADMIN_USER: ADMIN.name, SDWAN_ADMIN_PASSWORD: ADMIN.password }),
        {
          orchestrator: testOrchestrator(),
          logDestination: captureLogs().stream,
        },
      );
    try {
      const first = await start();
      const { token } = (
        await client(first.url)("POST", IDS, { body: { name: "ci", expiresInDays: 1 } })
      ).json<Issued>();
      await first.close();
      const files = await readdir(dir, { recursive: true, withFileTypes: true });
      const contents = await Promise.all(
        files.filter((file) => file.isFile()).map((file) => readFile(join(file.parentPath, file.name), "utf8")),
      );
      expect(contents.join("\n")).toContain(createHash("sha256").update(token).digest("hex"));
      for (const text of contents) expect(text).not.toContain(token.slice(4));
      const second = await start();
      try {
        expect((await client(second.url)("GET", `${BASE}/me`, bearer(token))).json()).toEqual({
          user: "token:ci",
          role: "viewer",
        });
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
