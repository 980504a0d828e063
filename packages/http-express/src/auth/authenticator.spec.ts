import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createManualClock } from "@sdwan-connections/core/testing";
import bcrypt from "bcryptjs";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it, vi } from "vitest";
import { createAuthenticator, parseBasic } from "./authenticator.js";
import { loadUsers, parseHtpasswd, type Users } from "./users.js";

const header = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString("base64")}`;

describe("parseBasic", () => {
  it("splits at the first colon and refuses other schemes", () => {
    expect(parseBasic(header("ann", "a:b"))).toEqual({ name: "ann", password: "a:b" });
    expect(parseBasic("basic " + Buffer.from("ann:x").toString("base64"))).toEqual({ name: "ann", password: "x" });
    expect(parseBasic("Bearer abc")).toBeUndefined();
    expect(parseBasic(`Basic ${Buffer.from("no-colon").toString("base64")}`)).toBeUndefined();
    expect(parseBasic(undefined)).toBeUndefined();
    expect(parseBasic(`Basic ${Buffer.from(":no-name").toString("base64")}`)).toBeUndefined();
  });
});

describe("parseHtpasswd", () => {
  it("reads bcrypt lines, skips comments, and names the line of anything else without its content", () => {
    const hash = bcrypt.hashSync("pw", 4);
    expect(parseHtpasswd(`# c\n\nann:${hash}\n`, "f")).toEqual(E.right(new Map([["ann", hash]])));
    expect(parseHtpasswd(`ann:${hash}\nbob:{SHA}secrethash=\n`, "users")).toEqual(
      E.left("users: line 2 is not 'user:bcrypt-hash' (create entries with 'htpasswd -B')"),
    );
  });
});

describe("createAuthenticator", () => {
  const users: Users = new Map([
    ["ann", { role: "admin", hash: bcrypt.hashSync("ann-pw", 4) }],
    ["env", { role: "admin", hash: bcrypt.hashSync("env-pw", 4) }],
    ["vic", { role: "viewer", hash: bcrypt.hashSync("vic-pw", 4) }],
  ]);

  it("verifies bcrypt and environment users, with their roles", async () => {
    const auth = createAuthenticator(users, { clock: createManualClock() });
    expect(await auth.authenticate(header("ann", "ann-pw"))).toEqual({ name: "ann", role: "admin" });
    expect(await auth.authenticate(header("env", "env-pw"))).toEqual({ name: "env", role: "admin" });
    expect(await auth.authenticate(header("vic", "vic-pw"))).toEqual({ name: "vic", role: "viewer" });
    expect(await auth.authenticate(header("ann", "wrong"))).toBeUndefined();
    expect(await auth.authenticate(header("nobody", "x"))).toBeUndefined();
  });

  it("remembers verified credentials for the TTL, never failures, and forgets all when users change", async () => {
    const clock = createManualClock();
    const compare = vi.spyOn(bcrypt, "compare");
    const auth = createAuthenticator(users, { clock, cacheTtlMs: 1_000 });
    await auth.authenticate(header("ann", "ann-pw"));
    await auth.authenticate(header("ann", "ann-pw"));
    expect(compare).toHaveBeenCalledTimes(1);
    await auth.authenticate(header("ann", "bad"));
    await auth.authenticate(header("ann", "bad"));
    expect(compare).toHaveBeenCalledTimes(3);
    clock.advance(1_000);
    await auth.authenticate(header("ann", "ann-pw"));
    expect(compare).toHaveBeenCalledTimes(4);
    auth.replaceUsers(new Map());
    expect(await auth.authenticate(header("ann", "ann-pw"))).toBeUndefined();
    compare.mockRestore();
  });
});

describe("login time tells no user apart", () => {
  /** The median time of `runs` checks of `user` with `password`. */
  const median = async (authenticate: (header: string) => Promise<unknown>, user: string, password: string, runs = 7): Promise<number> => {
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const started = performance.now();
      await authenticate(header(user, password));
      times.push(performance.now() - started);
    }
    return times.sort((a, b) => a - b)[Math.floor(runs / 2)] as number;
  };

  // 23 bcrypt operations at cost 11: 3 s on an idle machine, more beside a browser test on 2 cores; the ratios are the assertion.
  it("an unknown user and a wrong password (of a file user or the environment admin) cost what a known user's check costs", { timeout: 30_000 }, async () => {
    // A file user hashed at cost 11 sets the cost of every check: the environment admin is hashed at start with it.
    const dir = await mkdtemp(join(tmpdir(), "sdwan-timing-"));
    try {
      const file = join(dir, "users.htpasswd");
      await writeFile(file, `ann:${bcrypt.hashSync("ann-pw", 11)}\n`);
      const users = await loadUsers({ admin: { user: "env", password: "env-password-1" }, htpasswdFile: file, viewers: [], dataDir: dir });
      if (E.isLeft(users)) throw new Error(users.left);
      expect(users.right.get("env")?.hash).toMatch(/^\$2[aby]\$11\$/);
      // Failures are never cached, so every call is a full check.
      const { authenticate } = createAuthenticator(users.right, { clock: createManualClock() });
      const known = await median(authenticate, "ann", "wrong");
      const figures = {
        unknownUser: (await median(authenticate, "nobody", "x")) / known,
        wrongEnvPassword: (await median(authenticate, "env", "wrong")) / known,
      };
      for (const ratio of Object.values(figures)) {
        expect(ratio, JSON.stringify(figures)).toBeGreaterThan(0.5);
        expect(ratio, JSON.stringify(figures)).toBeLessThan(2);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
