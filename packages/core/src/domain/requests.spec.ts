import * as E from "fp-ts/lib/Either.js";
import { describe, expect, expectTypeOf, it } from "vitest";
import { AUDITED_FIELDS, type AuditedField } from "./audit.js";
import type { Connection } from "./connection.js";
import { decodeInput } from "./decode.js";
import type { DomainError } from "./errors.js";
import { AddConnectionRequest, CHANGEABLE_FIELDS, CONNECTION_FIELDS, UpdateConnectionRequest } from "./requests.js";

const fieldErrors = (result: E.Either<DomainError, unknown>) =>
  E.isLeft(result) && result.left._tag === "InvalidInput" ? result.left.errors : [];

const decodeAdd = decodeInput(AddConnectionRequest, "body");
const decodeUpdate = decodeInput(UpdateConnectionRequest, "body");
const valid = { alias: "lab", orchestratorUrl: "https://vco.example.net/", apiKey: "key-1" };

describe("AddConnectionRequest", () => {
  it("decodes the three fields, the key as an opaque ApiKey", () => {
    const result = decodeAdd(valid);
    expect(E.isRight(result) && result.right.apiKey?.reveal()).toBe("key-1");
    expect(E.isRight(result) && result.right.orchestratorUrl).toBe("https://vco.example.net/");
  });

  it("takes an optional apiKeyExpiresAt (RFC 3339) and refuses a bad one, naming it", () => {
    const result = decodeAdd({ ...valid, apiKeyExpiresAt: "2027-01-31T01:00:00+01:00" });
    expect(E.isRight(result) && result.right.apiKeyExpiresAt?.toISOString()).toBe("2027-01-31T00:00:00.000Z");
    expect(E.isRight(decodeAdd(valid)) && "apiKeyExpiresAt" in (decodeAdd(valid) as E.Right<object>).right).toBe(false);
    for (const bad of ["2027-01-31", "tomorrow", "2027-02-30T00:00:00Z", 1_800_000_000, null])
      expect(fieldErrors(decodeAdd({ ...valid, apiKeyExpiresAt: bad }))).toEqual([
        { field: "apiKeyExpiresAt", message: "must be an RFC 3339 time with an offset, e.g. 2027-01-31T00:00:00Z" },
      ]);
  });

  it("takes an optional keyRenewal, auto or off, and refuses anything else, naming it (SPEC §12)", () => {
    for (const mode of ["auto", "off"] as const)
      expect(decodeAdd({ ...valid, keyRenewal: mode })).toEqual(E.right(expect.objectContaining({ keyRenewal: mode })));
    for (const bad of ["on", "Auto", "", true, null, 1])
      expect(fieldErrors(decodeAdd({ ...valid, keyRenewal: bad }))).toEqual([
        { field: "keyRenewal", message: "must be one of auto, off" },
      ]);
  });

  it("names every missing field", () => {
    expect(fieldErrors(decodeAdd({}))).toEqual([
      { field: "alias", message: "is required" },
      { field: "orchestratorUrl", message: "is required" },
      { field: "apiKey", message: "is required" },
    ]);
  });

  it("refuses unknown keys, naming each (a typo must never be dropped)", () => {
    expect(fieldErrors(decodeAdd({ ...valid, apikey: "x", extra: 1 }))).toEqual([
      { field: "apikey", message: "is not a known field" },
      { field: "extra", message: "is not a known field" },
    ]);
  });

  it.each([null, [], "text", 3])("refuses a body that is not an object: %j", (body) => {
    expect(fieldErrors(decodeAdd(body))).toEqual([{ field: "body", message: "must be a JSON object" }]);
  });

  it("names each invalid field with its rule", () => {
    expect(fieldErrors(decodeAdd({ alias: "-bad", orchestratorUrl: "ftp://x", apiKey: "" }))).toEqual([
      {
        field: "alias",
        message: "must start with a letter or digit and contain only letters, digits, '.', '_' and '-'",
      },
      { field: "orchestratorUrl", message: "must use http or https" },
      { field: "apiKey", message: "must not be empty" },
    ]);
  });

  it("refuses a field of the wrong type", () => {
    expect(fieldErrors(decodeAdd({ ...valid, apiKey: 12 }))).toEqual([
      { field: "apiKey", message: "must be a string" },
    ]);
  });
});

describe("UpdateConnectionRequest", () => {
  it("takes apiKeyExpiresAt alone: declaring the expiry of the stored key", () => {
    const result = decodeUpdate({ apiKeyExpiresAt: "2027-01-31T00:00:00Z" });
    expect(E.isRight(result) && result.right.apiKeyExpiresAt?.toISOString()).toBe("2027-01-31T00:00:00.000Z");
  });

  it("takes keyRenewal alone: switching renewal without touching the key", () => {
    expect(decodeUpdate({ keyRenewal: "auto" })).toEqual(E.right({ keyRenewal: "auto" }));
    expect(fieldErrors(decodeUpdate({ keyRenewal: "yes" }))).toEqual([
      { field: "keyRenewal", message: "must be one of auto, off" },
    ]);
  });

  it("accepts either field alone", () => {
    expect(E.isRight(decodeUpdate({ orchestratorUrl: "https://x.example.net" }))).toBe(true);
    expect(E.isRight(decodeUpdate({ apiKey: "k" }))).toBe(true);
  });

  it("refuses a body with no field to change, naming every one it could have (regression: it named two of five)", () => {
    const none = "must contain at least one of orchestratorUrl, apiKey, apiKeyExpiresAt, keyRenewal, apiKeyRef";
    expect(fieldErrors(decodeUpdate({}))).toEqual([{ field: "body", message: none }]);
    expect(fieldErrors(decodeUpdate({ alias: "lab" }))).toEqual([{ field: "body", message: none }]);
    expect(E.isRight(decodeUpdate({ keyRenewal: "auto" }))).toBe(true);
  });

  it("tolerates an alias, still checking its format", () => {
    expect(E.isRight(decodeUpdate({ alias: "lab", apiKey: "k" }))).toBe(true);
    expect(fieldErrors(decodeUpdate({ alias: "", apiKey: "k" }))).toEqual([
      { field: "alias", message: "must not be empty" },
    ]);
  });

  it("refuses unknown keys", () => {
    expect(fieldErrors(decodeUpdate({ apiKey: "k", orchestratorURL: "x" }))).toEqual([
      { field: "orchestratorURL", message: "is not a known field" },
    ]);
  });
});

describe("the connection's fields", () => {
  it("are one table: the audited fields are every field of a connection, the changeable ones all but the alias", () => {
    expectTypeOf<AuditedField>().toEqualTypeOf<keyof Connection>();
    expect(AUDITED_FIELDS).toEqual(Object.keys(CONNECTION_FIELDS));
    expect(CHANGEABLE_FIELDS).toEqual(["orchestratorUrl", "apiKey", "apiKeyExpiresAt", "keyRenewal", "apiKeyRef"]);
  });
});
