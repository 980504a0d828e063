import { createManualClock } from "@sdwan-connections/core/testing";
import bcrypt from "bcryptjs";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { describe, expect, it, vi } from "vitest";
import { createAuthenticator, parseBasic } from "./authenticator.js";
import { parseHtpasswd, type Users } from "./users.js";

const header = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString("base64")}`;

describe("parseBasic", () => {
  it("splits at the first colon and refuses other schemes", () => {
    expect(parseBasic(header("ann", "a:b"))).toEqual(O.some({ name: "ann", password: "a:b" }));
    expect(parseBasic("basic " + Buffer.from("ann:x").toString("base64"))).toEqual(
      O.some({ name: "ann", password: "x" }),
    );
    expect(parseBasic("Bearer abc")).toEqual(O.none);
    expect(parseBasic(`Basic ${Buffer.from("no-colon").toString("base64")}`)).toEqual(O.none);
    expect(parseBasic(undefined)).toEqual(O.none);
    expect(parseBasic(`Basic ${Buffer.from(":no-name").toString("base64")}`)).toEqual(O.none);
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
