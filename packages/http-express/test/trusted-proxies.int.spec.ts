import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { describe, expect, it, vi } from "vitest";
import { ADMIN, BASE, OPERATOR, VIEWER, startHarness } from "./harness.js";

// Issue 27 #6: one address, one lockout. The service listens on 127.0.0.1, so every test client's peer is 127.0.0.1:
// "behind the proxy" is that peer, and SDWAN_TRUSTED_PROXIES=127.0.0.1 makes it a trusted one.
const ME = `${BASE}/me`;
const PROXY = { SDWAN_TRUSTED_PROXIES: "127.0.0.1" };
const wrong = (name: string, i = 0) => ({ name, password: `guess-${i}` });
const from = (forwardedFor: string) => ({ "x-forwarded-for": forwardedFor });

/** The `client` of the request log line of each answered request, in order. */
const loggedClients = (entries: readonly Record<string, unknown>[]): unknown[] =>
  entries.filter((entry) => entry["msg"] === "request").map((entry) => entry["client"]);

/** Runs `send` and counts the bcrypt comparisons it made: the password checks. */
const countingChecks = async <A>(send: () => Promise<A>): Promise<{ readonly result: A; readonly checks: number }> => {
  const compare = vi.spyOn(bcrypt, "compare");
  try {
    const result = await send();
    return { result, checks: compare.mock.calls.length };
  } finally {
    compare.mockRestore();
  }
};

/** Holds every password check until `size` are under way at once (or two seconds passed), so that they really overlap. */
const overlapping = (size: number) => {
  const original = bcrypt.compare.bind(bcrypt) as (password: string, hash: string) => Promise<boolean>;
  let underWay = 0;
  let release = (): void => undefined;
  const together = new Promise<void>((resolve) => {
    release = resolve;
    setTimeout(resolve, 2_000).unref();
  });
  return vi.spyOn(bcrypt, "compare").mockImplementation((async (password: string, hash: string) => {
    underWay += 1;
    if (underWay >= size) release();
    await together;
    return original(password, hash);
  }) as typeof bcrypt.compare);
};

describe("the client behind proxies (SDWAN_TRUSTED_PROXIES)", () => {
  it("ignores X-Forwarded-For from a peer that is not a trusted proxy: a guesser cannot rotate it past the throttle", async () => {
    await using h = await startHarness({ env: { SDWAN_LOGIN_MAX_FAILURES: "3" } });
    for (let i = 0; i < 3; i += 1)
      expect((await h.call("GET", ME, { user: wrong(ADMIN.name, i), headers: from(`198.51.100.${i}`) })).status).toBe(
        401,
      );
    expect((await h.call("GET", ME, { user: wrong(ADMIN.name, 3), headers: from("198.51.100.3") })).status).toBe(429);
    expect(new Set(loggedClients(h.logs.entries()))).toEqual(new Set(["127.0.0.1"]));
  });

  it("honours X-Forwarded-For from a trusted proxy, taking the right-most address that is not a proxy; the client's own entries are not believed", async () => {
    await using h = await startHarness({ env: { ...PROXY, SDWAN_LOGIN_MAX_FAILURES: "3" } });
    // The guesser writes a new left-most entry each time; the proxy appended its real address on the right.
    for (let i = 0; i < 3; i += 1) {
      expect(
        (
          await h.call("GET", ME, {
            user: wrong(ADMIN.name, i),
            headers: from(`203.0.113.${i}, 198.51.100.7, 127.0.0.1`),
          })
        ).status,
      ).toBe(401);
    }
    expect((await h.call("GET", ME, { user: ADMIN, headers: from("203.0.113.99, 198.51.100.7") })).status).toBe(429);
    // The same user from another client behind the same proxy is not locked out.
    expect((await h.call("GET", ME, { user: ADMIN, headers: from("198.51.100.8") })).status).toBe(200);
    expect(loggedClients(h.logs.entries())).toEqual([
      "198.51.100.7",
      "198.51.100.7",
      "198.51.100.7",
      "198.51.100.7",
      "198.51.100.8",
    ]);
  });
});

describe("failed logins counted per user name and address (issue 27 #6)", () => {
  it("a guesser behind the proxy is stopped on the name it hammers and does not lock out the others of its address", async () => {
    await using h = await startHarness({ env: { SDWAN_LOGIN_MAX_FAILURES: "3" } });
    const { result: statuses, checks } = await countingChecks(() =>
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          h.call("GET", ME, { user: wrong(ADMIN.name, i) }).then((reply) => reply.status),
        ),
      ),
    );
    expect(checks).toBe(3);
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect((await h.call("GET", ME, { user: OPERATOR })).status).toBe(200);
    expect((await h.call("GET", ME, { user: VIEWER })).status).toBe(200);
    expect((await h.call("GET", ME, { user: ADMIN })).status).toBe(429); // the name it hammered, from its address
  });

  it("a spray over user names from one address is stopped at SDWAN_LOGIN_MAX_FAILURES × 10 checks, however many arrive at once", async () => {
    await using h = await startHarness({ env: { ...PROXY, SDWAN_LOGIN_MAX_FAILURES: "2" } });
    const { result: statuses, checks } = await countingChecks(() =>
      Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          h.call("GET", ME, { user: wrong(`name-${i}`), headers: from("198.51.100.66") }).then((reply) => reply.status),
        ),
      ),
    );
    expect(checks).toBe(20);
    expect(statuses.filter((status) => status === 401)).toHaveLength(20);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
    // The sprayer's address is stopped for every name (the price: its own users too); other clients are not.
    expect((await h.call("GET", ME, { user: OPERATOR, headers: from("198.51.100.66") })).status).toBe(429);
    expect((await h.call("GET", ME, { user: OPERATOR, headers: from("198.51.100.67") })).status).toBe(200);
  });

  it("11 colleagues signing in at once through one proxy address all get in (SDWAN_LOGIN_MAX_FAILURES=10)", async () => {
    const colleagues = Array.from({ length: 11 }, (_, i) => ({ name: `colleague-${i}`, password: `password-of-${i}` }));
    await using h = await startHarness();
    const htpasswd = join(h.dir, "colleagues.htpasswd");
    await writeFile(
      htpasswd,
      colleagues.map(({ name, password }) => `${name}:${bcrypt.hashSync(password, 4)}\n`).join(""),
    );
    await using office = await startHarness({ env: { SDWAN_HTPASSWD_FILE: htpasswd, SDWAN_VIEWERS: "" } });
    using _checks = overlapping(colleagues.length);
    const statuses = await Promise.all(
      colleagues.map((user) => office.call("GET", ME, { user }).then((reply) => reply.status)),
    );
    expect(statuses).toEqual(colleagues.map(() => 200));
  });
});
