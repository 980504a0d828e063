import { describe, expect, it } from "vitest";
import { ApiKey } from "./api-key.js";
import {
  daysLeft,
  dueThreshold,
  keyExpiryDetail,
  keyMark,
  parseKeyExpiryDetail,
  storedKeyExpiry,
  tokenExpiryOf,
  tokenUuidOf,
} from "./key-expiry.js";

import { aJwt } from "../../testing/builders.js";

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
const key = (value: string) => ApiKey.unsafeFrom(value);
const DAY = 24 * 3600 * 1000;

describe("a key's own expiry (JWT exp)", () => {
  it("reads a numeric exp, in seconds, without verifying anything", () => {
    expect(tokenExpiryOf(key(aJwt({ exp: 1_800_000_000 })))?.toISOString()).toBe("2027-01-15T08:00:00.000Z");
  });

  it.each([
    ["an opaque key", "sample-partner-key-1"],
    ["a JWT without exp", aJwt({ sub: "x" })],
    ["a JWT whose exp is text", aJwt({ exp: "1800000000" })],
    ["a JWT whose exp is out of range", aJwt({ exp: 1e300 })],
    // Issue 36: the largest time a Date holds was shown as `+275760-09-13T00:00:00.000Z`, which no RFC 3339 reader takes.
    ["a JWT whose exp is past the year 9999", aJwt({ exp: 8.64e12 })],
    ["three parts that are not JSON", "abc.def.ghi"],
    ["a payload that is not an object", `${part({})}.${part([1])}.x`],
  ])("knows none for %s", (_, value) => {
    expect(tokenExpiryOf(key(value))).toBeUndefined();
  });

  it("reads the tokenUuid the orchestrator lists the token by", () => {
    expect(tokenUuidOf(key(aJwt({ tokenUuid: "9c1b" })))).toBe("9c1b");
    expect(tokenUuidOf(key("opaque"))).toBeUndefined();
  });
});

describe("the sources, in order", () => {
  const jwt = key(aJwt({ exp: 1_800_000_000 }));
  it("declared wins over the key's own", () => {
    expect(storedKeyExpiry({ apiKey: jwt, apiKeyExpiresAt: new Date("2026-12-01T00:00:00Z") })).toEqual({
      expiresAt: new Date("2026-12-01T00:00:00Z"),
      source: "declared",
    });
  });
  it("then the token's", () => {
    expect(storedKeyExpiry({ apiKey: jwt })).toEqual({ expiresAt: new Date(1_800_000_000_000), source: "token" });
  });
  it("else none", () => {
    expect(storedKeyExpiry({ apiKey: key("opaque") })).toBeUndefined();
  });
});

describe("the threshold due", () => {
  const now = new Date("2026-11-01T00:00:00Z");
  const at = (days: number) => new Date(now.getTime() + days * DAY);
  it.each([
    [45, undefined],
    [30, 30],
    [29.5, 30],
    [7, 7],
    [5, 7],
    [1, 1],
    [0.2, 1],
    [0, 0],
    [-3, 0],
  ])("%s days before: %s", (days, due) => {
    expect(dueThreshold(at(days), now, [30, 7, 1])).toBe(due);
  });
  it("counts days left rounded up", () => {
    expect(daysLeft(at(6.5), now)).toBe(7);
    expect(daysLeft(at(-0.5), now)).toBe(0);
  });
  it("marks a key by its key date and its expiry, so a new key starts the thresholds again", () => {
    const expiry = { expiresAt: at(10), source: "declared" as const };
    expect(keyMark({ apiKeySetAt: now }, expiry)).not.toBe(keyMark({ apiKeySetAt: at(1) }, expiry));
    expect(keyMark({ apiKeySetAt: null }, expiry)).toBe(`undated/${at(10).toISOString()}`);
  });
});

describe("the audit detail", () => {
  it("is read back as written", () => {
    const detail = {
      expiresAt: new Date("2027-01-31T00:00:00.000Z"),
      daysLeft: 7,
      source: "token" as const,
      threshold: 7,
    };
    expect(parseKeyExpiryDetail(keyExpiryDetail(detail))).toEqual(detail);
    expect(parseKeyExpiryDetail("valid → invalid")).toBeUndefined();
    expect(parseKeyExpiryDetail(null)).toBeUndefined();
  });
});
