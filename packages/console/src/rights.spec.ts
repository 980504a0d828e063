import { describe, expect, it } from "vitest";
import type { GrantVerb, Me } from "@sdwan-connections/core/wire";
import { may, mayAdd, verbsOn } from "./rights.js";

// The patterns as the service answers them (its codec brands them as alias patterns once decoded).
const principal = (role: Me["role"], grants: readonly { pattern: string; verb: GrantVerb }[] = []): Me =>
  ({ user: "token:ci", role, grants }) as Me;

describe("the verbs the console shows controls for (core's verbsOf semantics)", () => {
  it("give an admin every verb and a viewer read and use, on every alias", () => {
    expect(verbsOn(principal("admin"), "any")).toEqual(["read", "use", "manage"]);
    expect(verbsOn(principal("viewer"), "any")).toEqual(["read", "use"]);
    expect(mayAdd(principal("admin"))).toBe(true);
    expect(mayAdd(principal("viewer"))).toBe(false);
  });

  it("give a principal without a role only what its grants cover, the widest verb of them, patterns ignoring case", () => {
    const me = principal(null, [
      { pattern: "emea-*", verb: "read" },
      { pattern: "EMEA-PARIS", verb: "use" },
      { pattern: "*-lab", verb: "manage" },
    ]);
    expect(verbsOn(me, "apac-tokyo")).toEqual([]);
    expect(verbsOn(me, "emea-berlin")).toEqual(["read"]);
    expect(verbsOn(me, "Emea-Paris")).toEqual(["read", "use"]);
    expect(verbsOn(me, "emea-lab")).toEqual(["read", "use", "manage"]);
    expect(may(me, "manage", "emea-berlin")).toBe(false);
    expect(mayAdd(me)).toBe(true);
    expect(mayAdd(principal(null, [{ pattern: "*", verb: "use" }]))).toBe(false);
  });

  it("add to a role, never take away; a pattern's other characters are themselves", () => {
    const viewer = principal("viewer", [{ pattern: "lab.1", verb: "manage" }]);
    expect(verbsOn(viewer, "lab.1")).toEqual(["read", "use", "manage"]);
    expect(verbsOn(viewer, "lab-1")).toEqual(["read", "use"]);
    expect(verbsOn(principal("admin", [{ pattern: "x", verb: "read" }]), "x")).toEqual(["read", "use", "manage"]);
  });
});
