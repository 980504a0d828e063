import { readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { createManualClock } from "@sdwan-connections/core/testing";
import bcrypt from "bcryptjs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { generatedAdminFile } from "../src/auth/users.js";
import { IDS } from "@sdwan-connections/composition";
import { createInMemoryStorage } from "@sdwan-connections/core";
import {
  ADMIN,
  anAddBody,
  BASE,
  basic,
  captureLogs,
  client,
  makeDataDir,
  makeUsersDir,
  OPERATOR,
  startHarness,
  startService,
  TEST_KEYS,
  testConfig,
  testOrchestrator,
  VIEWER,
} from "./harness.js";

const CONNECTIONS = `${BASE}/connections`;

/** A service on an in-memory store whose users come from `config`'s files; `announce` hears what it prints. */
const startOnUserFiles = (config: ReturnType<typeof testConfig>, announce?: (text: string) => void) =>
  startService(config, {
    storage: createInMemoryStorage(),
    orchestrator: testOrchestrator(),
    logDestination: captureLogs().stream,
    ...(announce === undefined ? {} : { announce }),
  });

/** The service's clock and Date (which the failed-login count, rate-limiter-flexible, reads), moved on together. */
const advance = (clock: ReturnType<typeof createManualClock>, ms: number): void => {
  clock.advance(ms);
  vi.setSystemTime(Date.now() + ms);
};

describe("authentication and roles (docs/interface.md §5)", () => {
  // Only Date is faked (for the failed-login count); sockets and timers run for real.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("htpasswd users ($2y$ and $2b$) sign in; SDWAN_VIEWERS are viewers, the others admins", async () => {
    await using h = await startHarness();
    expect((await h.call("POST", `${CONNECTIONS}?force=true`, { user: OPERATOR, body: anAddBody() })).status).toBe(200);
    expect((await h.call("GET", CONNECTIONS, { user: VIEWER })).status).toBe(200);
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`, { user: VIEWER })).status).toBe(403);
    expect((await h.call("HEAD", CONNECTIONS, { user: VIEWER })).status).toBe(200);
  });

  it("throttles a client after 10 failed logins within the window: 429 with Retry-After, even with good credentials, until it ends", async () => {
    const clock = createManualClock();
    await using h = await startHarness({ clock });
    const wrong = { name: ADMIN.name, password: "not-the-password" };
    for (let i = 0; i < 10; i += 1) expect((await h.call("GET", CONNECTIONS, { user: wrong })).status).toBe(401);
    const blocked = await h.call("GET", CONNECTIONS, { user: ADMIN });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBe("60");
    expect(blocked.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    advance(clock, 45_000);
    expect((await h.call("GET", CONNECTIONS, { user: ADMIN })).headers.get("retry-after")).toBe("15");
    advance(clock, 15_000);
    expect((await h.call("GET", CONNECTIONS, { user: ADMIN })).status).toBe(200);
  });

  it("credentials verified before the failures (admitted from the cache, unparsed) are throttled as well", async () => {
    const clock = createManualClock();
    await using h = await startHarness({ clock });
    expect((await h.call("GET", CONNECTIONS, { user: ADMIN })).status).toBe(200);
    const wrong = { name: ADMIN.name, password: "not-the-password" };
    for (let i = 0; i < 10; i += 1) expect((await h.call("GET", CONNECTIONS, { user: wrong })).status).toBe(401);
    expect((await h.call("GET", CONNECTIONS, { user: ADMIN })).status).toBe(429);
    advance(clock, 60_000);
    expect((await h.call("GET", CONNECTIONS, { user: ADMIN })).status).toBe(200);
  });

  it("failures spread over more than the window are not throttled; the limits are configurable", async () => {
    const clock = createManualClock();
    await using h = await startHarness({
      clock,
      env: { SDWAN_LOGIN_MAX_FAILURES: "3", SDWAN_LOGIN_WINDOW_MS: "10000" },
    });
    const wrong = { name: ADMIN.name, password: "nope-nope" };
    for (let i = 0; i < 2; i += 1) await h.call("GET", CONNECTIONS, { user: wrong });
    advance(clock, 10_000);
    for (let i = 0; i < 2; i += 1) await h.call("GET", CONNECTIONS, { user: wrong });
    expect((await h.call("GET", CONNECTIONS)).status).toBe(200);
    await h.call("GET", CONNECTIONS, { user: wrong });
    expect((await h.call("GET", CONNECTIONS)).status).toBe(429);
  });

  it("requests without credentials are not counted as failed logins", async () => {
    await using h = await startHarness({ env: { SDWAN_LOGIN_MAX_FAILURES: "2" } });
    for (let i = 0; i < 5; i += 1) expect((await h.call("GET", CONNECTIONS, { user: null })).status).toBe(401);
    expect((await h.call("GET", CONNECTIONS)).status).toBe(200);
  });

  it("a changed user file takes effect without restart and drops verified credentials", async () => {
    const { dir, htpasswd } = await makeUsersDir();
    const config = testConfig({ SDWAN_DATA_DIR: dir, SDWAN_HTPASSWD_FILE: htpasswd, SDWAN_VIEWERS: VIEWER.name });
    const service = await startOnUserFiles(config);
    try {
      const call = client(service.url);
      expect((await call("GET", CONNECTIONS, { user: OPERATOR })).status).toBe(200);
      // As `htpasswd` and editors do: write a new file, then rename it over the old one.
      await writeFile(`${htpasswd}.new`, `${OPERATOR.name}:${bcrypt.hashSync("a-new-password", 4)}\n`);
      await rename(`${htpasswd}.new`, htpasswd);
      const newPassword = { name: OPERATOR.name, password: "a-new-password" };
      await expect
        .poll(async () => (await call("GET", CONNECTIONS, { user: newPassword })).status, {
          timeout: 5_000,
          interval: 200,
        })
        .toBe(200);
      expect((await call("GET", CONNECTIONS, { user: OPERATOR })).status).toBe(401);
    } finally {
      await service.close();
    }
  });

  it("a user file that appears after the start is read, and one that goes is noticed (the data directory's admin)", async () => {
    const { dir, htpasswd } = await makeUsersDir();
    const config = testConfig({ SDWAN_DATA_DIR: dir, SDWAN_HTPASSWD_FILE: htpasswd });
    const service = await startOnUserFiles(config);
    try {
      const call = client(service.url);
      const later = { name: "later-admin", password: "a-later-password" };
      const status = async () => (await call("GET", CONNECTIONS, { user: later })).status;
      expect(await status()).toBe(401);
      await writeFile(generatedAdminFile(dir), `${later.name}:${bcrypt.hashSync(later.password, 4)}\n`);
      await expect.poll(status, { timeout: 5_000, interval: 200 }).toBe(200);
      await rm(generatedAdminFile(dir));
      await expect.poll(status, { timeout: 5_000, interval: 200 }).toBe(401);
      expect((await call("GET", CONNECTIONS, { user: OPERATOR })).status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it("with no users configured, creates an admin, stores only its hash (mode 0600) and prints the password once; a restart names that admin, without a password", async () => {
    const dir = await makeDataDir();
    const printed: string[] = [];
    const start = () => startOnUserFiles(testConfig({ SDWAN_DATA_DIR: dir }), (text) => printed.push(text));
    const first = await start();
    await first.close();
    expect(printed).toHaveLength(1);
    const password = /password: (\S+)/.exec(printed[0] ?? "")?.[1] ?? "";
    expect(password.length).toBeGreaterThanOrEqual(20);
    const stored = await readFile(generatedAdminFile(dir), "utf8");
    expect(stored).toMatch(/^admin:\$2[aby]\$12\$/);
    expect(stored).not.toContain(password);
    expect((await stat(generatedAdminFile(dir))).mode & 0o777).toBe(0o600);

    const second = await start();
    try {
      expect(printed).toHaveLength(2);
      expect(printed[1]).toContain("the admin generated at the first start, `admin`");
      expect(printed[1]).toContain(generatedAdminFile(dir));
      expect(printed[1]).not.toContain(password);
      expect(printed[1]).not.toMatch(/password: /);
      const call = client(second.url);
      expect(
        (await call("POST", `${CONNECTIONS}?force=true`, { user: { name: "admin", password }, body: anAddBody() }))
          .status,
      ).toBe(200);
      expect((await call("GET", CONNECTIONS, { user: { name: "admin", password: "wrong-password" } })).status).toBe(
        401,
      );
    } finally {
      await second.close();
    }
  });
});

describe("secrets never leave (docs/interface.md §2, §3, §7)", () => {
  it("no response and no log line contains an apiKey or a password, whatever the request", async () => {
    await using h = await startHarness({ env: { SDWAN_LOG_LEVEL: "trace" } });
    const key = TEST_KEYS.partner;
    const secrets = [key, ADMIN.password, VIEWER.password, basic(ADMIN).slice(6), "typo-key-0a0a0a", "ctl-key-1b1b1b"];
    const replies = [
      await h.call("POST", `${CONNECTIONS}?dryrun=true`, { body: anAddBody() }),
      await h.call("POST", CONNECTIONS, { body: anAddBody() }),
      await h.call("POST", CONNECTIONS, { body: anAddBody() }),
      await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "typo", apikey: "typo-key-0a0a0a" }) }),
      await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "ctl", apiKey: "ctl-key-1b1b1b\u0007" }) }),
      await h.call("POST", CONNECTIONS, {
        rawBody: `{"apiKey":"${key}"`,
        headers: { "content-type": "application/json" },
      }),
      await h.call("POST", `${CONNECTIONS}?apiKey=${key}`, { body: anAddBody({ alias: "q" }) }),
      await h.call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey: key } }),
      await h.call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey: TEST_KEYS.refused } }),
      await h.call("GET", CONNECTIONS),
      await h.call("GET", `${CONNECTIONS}/lab?verbose=true`),
      await h.call("GET", `${BASE}/partner/lab/customers`),
      await h.call("GET", CONNECTIONS, { user: { name: ADMIN.name, password: "wrong-password" } }),
      await h.call("GET", CONNECTIONS, { user: VIEWER }),
      await h.call("GET", "/metrics", { user: null }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 50));
    const everything = [
      ...replies.map((reply) => `${[...reply.headers].join("\n")}\n${reply.text}`),
      h.logs.text(),
    ].join("\n");
    expect(h.logs.lines.length).toBeGreaterThanOrEqual(replies.length);
    for (const secret of [...secrets, TEST_KEYS.refused]) expect(everything).not.toContain(secret);
  });

  it("the logger redacts apiKey and authorization even if a caller passes them", async () => {
    await using h = await startHarness();
    const logger = h.service.composition.container.get(IDS.Logger);
    logger.info(
      { apiKey: "leak-1", headers: { authorization: "Basic leak-2" }, connection: { apiKey: "leak-3" } },
      "x",
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(h.logs.text()).not.toMatch(/leak-[123]/);
  });
});
