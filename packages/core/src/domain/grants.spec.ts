import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { accessOf, GrantRequestCodec, patternMatches, type Grant, type GrantVerb, type Principal } from "./grants.js";

let ids = 0;
const grant = (subject: string, verb: GrantVerb, pattern: string): Grant =>
  ({ id: String((ids += 1)), subject, pattern, verb }) as Grant;
const alice: Principal = { name: "oidc:alice", groups: ["emea"], role: undefined };

describe("grant patterns", () => {
  it("match with * only, any run of alias characters, ignoring case; a dot is a dot", () => {
    expect(patternMatches("emea-*", "EMEA-paris")).toBe(true);
    expect(patternMatches("emea-*", "emea-")).toBe(true);
    expect(patternMatches("emea-*", "apac-emea-1")).toBe(false);
    expect(patternMatches("*.lab", "x.LAB")).toBe(true);
    expect(patternMatches("a.b", "axb")).toBe(false);
    expect(patternMatches("*", "anything")).toBe(true);
    expect(patternMatches("lab", "lab2")).toBe(false);
  });

  it("are decoded strictly: a subject of a known kind, a glob of alias characters and *, a known verb, nothing else", () => {
    expect(E.isRight(GrantRequestCodec.decode({ subject: "group:emea", pattern: "emea-*", verb: "use" }))).toBe(true);
    for (const bad of [
      { subject: "emea", pattern: "x", verb: "read" },
      { subject: "role:admin", pattern: "x", verb: "read" },
      { subject: "user:", pattern: "x", verb: "read" },
      { subject: "user:a", pattern: "x?", verb: "read" },
      { subject: "user:a", pattern: "", verb: "read" },
      { subject: "user:a", pattern: "x", verb: "delete" },
      { subject: "user:a", pattern: "x", verb: "read", deny: true },
    ])
      expect(E.isLeft(GrantRequestCodec.decode(bad))).toBe(true);
  });
});

const verbsOf = (principal: Principal, alias: string, grants: readonly Grant[]): readonly GrantVerb[] =>
  accessOf(principal, grants).verbs(alias);

describe("verbsOf: allow-only union of the role and the grants", () => {
  it("gives nothing to a principal without role or grant", () => {
    expect(verbsOf(alice, "emea-1", [])).toEqual([]);
  });

  it("gives a grant's verb and the ones before it, to the principal or one of its groups, on matching aliases only", () => {
    const grants = [
      grant("group:emea", "use", "emea-*"),
      grant("oidc:alice", "manage", "lab"),
      grant("oidc:bob", "manage", "*"),
    ];
    expect(verbsOf(alice, "EMEA-1", grants)).toEqual(["read", "use"]);
    expect(verbsOf(alice, "lab", grants)).toEqual(["read", "use", "manage"]);
    expect(verbsOf(alice, "apac-1", grants)).toEqual([]);
    expect([accessOf(alice, grants).granted("manage"), accessOf(alice, []).granted("read")]).toEqual([true, false]);
    // The name must be the principal's whole name: user:alice is not oidc:alice.
    expect(verbsOf({ ...alice, name: "user:alice", groups: [] }, "lab", grants)).toEqual([]);
  });

  it("keeps the role's verbs whatever the grants (never a deny): admin everything, viewer read and use", () => {
    const grants = [grant("oidc:alice", "read", "*")];
    expect(verbsOf({ ...alice, role: "admin" }, "x", grants)).toEqual(["read", "use", "manage"]);
    expect(verbsOf({ ...alice, role: "viewer" }, "x", grants)).toEqual(["read", "use"]);
    expect(verbsOf({ ...alice, role: "viewer" }, "lab", [grant("group:emea", "manage", "l*")])).toEqual([
      "read",
      "use",
      "manage",
    ]);
  });
});
