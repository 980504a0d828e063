import * as t from "io-ts";
import { describe, expect, it } from "vitest";
import { invalidStored, repeatedName, toFieldErrors } from "./decode.js";

describe("invalidStored", () => {
  it("names what is stored and each bad field, never a value, then the advice", () => {
    const decoded = t.type({ hash: t.string, name: t.string }).decode({ hash: 42, name: "sdw_secret" });
    expect(decoded._tag).toBe("Left");
    if (decoded._tag === "Right") return;
    expect(invalidStored("a service token", decoded.left)).toEqual({
      _tag: "StorageFailure",
      reason: "Storage failure: a service token is invalid (hash must be a string).",
    });
    expect(invalidStored("health.json", decoded.left, "health", "move it away")).toMatchObject({
      reason: "Storage failure: health.json is invalid (hash must be a string); move it away.",
    });
  });
});

describe("toFieldErrors", () => {
  // Bug: POST /grants with a bad verb answered "verb: must be GrantVerb", the codec's name, not the values it takes.
  it("names an enum's values, never its codec's name", () => {
    const decoded = t
      .type({ verb: t.keyof({ read: null, use: null, manage: null }, "GrantVerb"), kind: t.literal("grant") })
      .decode({ verb: "own", kind: "other" });
    if (decoded._tag === "Right") throw new Error("decoded");
    expect(toFieldErrors(decoded.left, "body")).toEqual([
      { field: "verb", message: "must be one of read, use, manage" },
      { field: "kind", message: 'must be "grant"' },
    ]);
  });

  // Bug: a grant that was not an object was refused as "must be PatternGrant", a stored row's field as "must be string".
  it("names the kind of value a codec takes, never its name", () => {
    const decoded = t
      .type({
        grant: t.type({ pattern: t.string }, "PatternGrant"),
        grants: t.array(t.string),
        count: t.number,
        forced: t.boolean,
        name: t.string,
      })
      .decode({ grant: 42, grants: "all", count: "1", forced: "yes", name: 7 });
    if (decoded._tag === "Right") throw new Error("decoded");
    expect(toFieldErrors(decoded.left, "body")).toEqual([
      { field: "grant", message: "must be a JSON object" },
      { field: "grants", message: "must be a list" },
      { field: "count", message: "must be a number" },
      { field: "forced", message: "must be true or false" },
      { field: "name", message: "must be a string" },
    ]);
  });
});

describe("repeatedName", () => {
  // Bug: a body naming a field twice was read as its last value (JSON.parse), e.g. a second apiKey past a proxy's check.
  it("finds a name an object gives twice, as JSON reads names, at any depth, named by its path", () => {
    expect(repeatedName('{"apiKey":"a","alias":"x","apiKey":"b"}')).toBe("apiKey");
    expect(repeatedName('{"a\\u0070iKey":1,"apiKey":2}')).toBe("apiKey");
    expect(repeatedName('[{"a":1},{"a":2,"b":{"c":1,"c":2}}]')).toBe("b.c");
    expect(repeatedName('{"a":{"b":1},"a":2}')).toBe("a");
    expect(repeatedName('{"x":1,"connections":[{"alias":"a"},{"alias":"b","alias":"c"}]}')).toBe("connections.alias");
    expect(repeatedName('{"a":[[{"b":{"c":[{"d":1,"d":2}]}}]]}')).toBe("a.b.c.d");
  });

  it("finds none where each object names each field once, whatever the strings hold", () => {
    expect(repeatedName('{"a":"a","b":["a","a"],"c":{"a":1},"d":"x\\"y","e":"{\\"a\\":1,\\"a\\":2}"}')).toBeUndefined();
    expect(repeatedName('[{"a":1},{"a":2}]')).toBeUndefined();
    expect(repeatedName('"a"')).toBeUndefined();
    expect(repeatedName("{")).toBeUndefined();
  });
});
