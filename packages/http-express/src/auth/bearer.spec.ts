import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { claimAt, parseBearer, userOfClaims } from "./bearer.js";

const mapping = {
  usernameClaim: "preferred_username",
  groupsClaim: "groups",
  adminGroups: ["ops"],
  viewerGroups: ["noc", "support"],
};

describe("parseBearer", () => {
  it("takes the token of a Bearer header (any case of the scheme), nothing else", () => {
    expect(parseBearer("Bearer a.b.c")).toBe("a.b.c");
    expect(parseBearer("bearer sdw_abc-_=")).toBe("sdw_abc-_=");
    expect(parseBearer("Basic YTpi")).toBeUndefined();
    expect(parseBearer("Bearer a b")).toBeUndefined();
    expect(parseBearer(undefined)).toBeUndefined();
  });
});

describe("claimAt", () => {
  it("reads a claim by name, a dotted path into nested claims, and a name with dots as it is", () => {
    const claims = { groups: ["a"], realm_access: { roles: ["r"] }, "https://example.net/groups": ["u"] };
    expect(claimAt(claims, "groups")).toEqual(["a"]);
    expect(claimAt(claims, "realm_access.roles")).toEqual(["r"]);
    expect(claimAt(claims, "https://example.net/groups")).toEqual(["u"]);
    expect(claimAt(claims, "realm_access.missing.deeper")).toBeUndefined();
  });
});

describe("userOfClaims", () => {
  it("names the principal oidc:NAME from the username claim, else sub, with its groups", () => {
    expect(userOfClaims({ sub: "1234", preferred_username: "ann", groups: ["ops"] }, mapping)).toEqual(
      E.right({ name: "oidc:ann", role: "admin", groups: ["ops"] }),
    );
    expect(userOfClaims({ sub: "1234", preferred_username: "" }, mapping)).toEqual(
      E.right({ name: "oidc:1234", role: undefined, groups: [] }),
    );
    expect(userOfClaims({ preferred_username: 7 }, mapping)).toEqual(
      E.left("it names no user (neither preferred_username nor sub)"),
    );
  });

  it("gives admin for an admin group, else viewer for a viewer group, else no role; a single group may be a string", () => {
    expect(userOfClaims({ sub: "u", groups: ["support", "ops"] }, mapping)).toMatchObject(E.right({ role: "admin" }));
    expect(userOfClaims({ sub: "u", groups: "noc" }, mapping)).toMatchObject(E.right({ role: "viewer" }));
    expect(userOfClaims({ sub: "u", groups: ["OPS", 3] }, mapping)).toMatchObject(E.right({ role: undefined }));
    expect(
      userOfClaims({ sub: "u", realm_access: { roles: ["ops"] } }, { ...mapping, groupsClaim: "realm_access.roles" }),
    ).toMatchObject(E.right({ role: "admin" }));
  });
});
