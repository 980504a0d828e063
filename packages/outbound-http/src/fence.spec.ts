import type { LookupFunction } from "node:net";
import { describe, expect, it } from "vitest";
import { fencedAgents, fencedLookup } from "./fence.js";

/** A resolver that answers every name with `addresses` (as `all: true` lookups get them). */
const resolvingTo =
  (...addresses: string[]): LookupFunction =>
  (_hostname, _options, callback) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })) as never,
      undefined as never,
    );

const lookUp = (lookup: LookupFunction, hostname: string) =>
  new Promise<NodeJS.ErrnoException | null>((resolve) => lookup(hostname, { all: true }, (error) => resolve(error)));

describe("fencedLookup", () => {
  it("fails a name that resolves to a link-local or metadata address with EFENCED", async () => {
    const metadata = [
      ["100.100.100.200"],
      ["192.0.0.192"],
      ["64:ff9b::a9fe:a9fe"],
      ["::a9fe:a9fe"],
      ["::ffff:169.254.169.254"],
      ["2002:a9fe:a9fe::1"],
      ["fd20:ce::254"],
    ];
    for (const addresses of [
      ["169.254.169.254"],
      ["10.0.0.1", "169.254.0.9"],
      ["fe80::1"],
      ["fd00:ec2::254"],
      ...metadata,
    ]) {
      expect(
        (await lookUp(fencedLookup(undefined, resolvingTo(...addresses)), "vco.example.net"))?.code,
        addresses.join(),
      ).toBe("EFENCED");
    }
  });

  it("passes other addresses, and a host the allowlist names itself", async () => {
    expect(await lookUp(fencedLookup(undefined, resolvingTo("10.0.0.1", "2001:db8::1")), "vco.example.net")).toBeNull();
    expect(
      await lookUp(fencedLookup(["vco.example.net"], resolvingTo("169.254.169.254")), "VCO.example.net"),
    ).toBeNull();
    expect(
      (await lookUp(fencedLookup(["other.example.net"], resolvingTo("169.254.169.254")), "vco.example.net"))?.code,
    ).toBe("EFENCED");
  });
});

describe("fencedAgents", () => {
  it("look names up through the fence, for http and https (an address resolves to itself, without DNS)", async () => {
    const agents = fencedAgents({ allowedHosts: ["169.254.0.9"] });
    for (const url of ["http://vco.example.net/", "https://vco.example.net/"]) {
      const { lookup } = (agents.agent(new URL(url)) as unknown as { options: { lookup: LookupFunction } }).options;
      expect((await lookUp(lookup, "169.254.169.254"))?.code, url).toBe("EFENCED");
      expect(await lookUp(lookup, "169.254.0.9"), url).toBeNull();
    }
    agents.close();
  });
});
