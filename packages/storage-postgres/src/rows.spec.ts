import { randomBytes } from "node:crypto";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { createKeyring, masterKey } from "@sdwan-connections/secrets";
import { decodeConnection, decodeSummary } from "./rows.js";

const keyring = createKeyring({ current: masterKey(randomBytes(32)) });
const SECRET = "row-secret-✓";
const row = (overrides: Record<string, unknown> = {}) => ({
  alias: "Lab",
  orchestrator_url: "https://vco.example.net/",
  api_key: keyring.seal(SECRET, "lab"),
  version: 3,
  api_key_set_at: new Date("2026-11-22T10:00:00Z"),
  api_key_expires_at: null,
  key_renewal: "off",
  ...overrides,
});
const reason = (result: E.Either<{ _tag: string }, unknown>) => {
  if (E.isRight(result)) throw new Error("expected a failure");
  return JSON.stringify(result.left);
};

describe("decodeConnection", () => {
  it("opens the sealed key with the lower-cased alias as associated data", () => {
    const decoded = decodeConnection(keyring)(row());
    if (E.isLeft(decoded)) throw new Error(JSON.stringify(decoded.left));
    expect([
      decoded.right.alias,
      decoded.right.orchestratorUrl,
      decoded.right.apiKey.reveal(),
      decoded.right.version,
      decoded.right.apiKeySetAt,
    ]).toEqual(["Lab", "https://vco.example.net/", SECRET, 3, new Date("2026-11-22T10:00:00Z")]);
  });

  it("refuses a key sealed for another alias", () => {
    expect(reason(decodeConnection(keyring)(row({ api_key: keyring.seal(SECRET, "prod") })))).toMatch(
      /connection 'Lab' cannot be opened/,
    );
  });

  it("refuses a key that opens to something that is not an apiKey", () => {
    expect(reason(decodeConnection(keyring)(row({ api_key: keyring.seal("", "lab") })))).toMatch(
      /is not a valid apiKey/,
    );
  });

  it.each([
    ["a missing column", { alias: undefined }, "alias"],
    ["a bad alias", { alias: "no spaces" }, "alias"],
    ["a bad URL", { orchestrator_url: "ftp://x" }, "orchestrator_url"],
    ["a non-text key", { api_key: 42 }, "api_key"],
    ["a fractional version", { version: 1.5 }, "version"],
    ["a key date that is not a time", { api_key_set_at: "yesterday" }, "api_key_set_at"],
  ])("names the column of %s, never its value", (_case, overrides, column) => {
    const text = reason(decodeConnection(keyring)(row(overrides)));
    expect(text).toContain(column);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("no spaces");
    expect(text).not.toContain("ftp://");
  });
});

describe("decodeSummary", () => {
  it("needs no key", () => {
    expect(decodeSummary({ alias: "Lab", orchestrator_url: "https://x.example.net" })).toEqual(
      E.right({ alias: "Lab", orchestratorUrl: "https://x.example.net" }),
    );
  });
});
