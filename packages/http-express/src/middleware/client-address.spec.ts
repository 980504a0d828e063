import { describe, expect, it } from "vitest";
import { clientAddressBehind } from "./client-address.js";

const INGRESS = [
  { address: "10.42.0.0", prefix: 16, family: "ipv4" },
  { address: "fd00:42::", prefix: 64, family: "ipv6" },
] as const;

describe("clientAddressBehind", () => {
  const behindIngress = clientAddressBehind(INGRESS);

  it("is the peer when no proxy is trusted, whatever X-Forwarded-For says", () => {
    expect(clientAddressBehind([])("10.42.0.5", "198.51.100.7")).toBe("10.42.0.5");
    expect(clientAddressBehind([])(undefined, undefined)).toBe("unknown");
  });

  it("is the peer when the peer is not a trusted proxy (a spoofed header is ignored)", () => {
    expect(behindIngress("203.0.113.9", "198.51.100.7")).toBe("203.0.113.9");
    expect(behindIngress("::ffff:203.0.113.9", "10.42.0.5")).toBe("::ffff:203.0.113.9");
  });

  it("is the right-most address that is not a trusted proxy: what the client wrote on the left is never believed", () => {
    expect(behindIngress("10.42.0.5", "198.51.100.7")).toBe("198.51.100.7");
    expect(behindIngress("10.42.0.5", "1.1.1.1, 2.2.2.2, 198.51.100.7")).toBe("198.51.100.7");
    expect(behindIngress("10.42.0.5", "1.1.1.1, 198.51.100.7, 10.42.3.3")).toBe("198.51.100.7");
    expect(behindIngress("::ffff:10.42.0.5", "2001:db8::7")).toBe("2001:db8::7");
    expect(behindIngress("fd00:42::1", " 198.51.100.7 ")).toBe("198.51.100.7");
  });

  it("stops at an entry that is not an address: the proxy that forwarded it is the client", () => {
    expect(behindIngress("10.42.0.5", "198.51.100.7, not-an-address")).toBe("10.42.0.5");
    expect(behindIngress("10.42.0.5", "198.51.100.7, junk, 10.42.0.9")).toBe("10.42.0.9");
  });

  it("is the trusted peer itself without the header, and the left-most hop when every hop is trusted", () => {
    expect(behindIngress("10.42.0.5", undefined)).toBe("10.42.0.5");
    expect(behindIngress("10.42.0.5", "10.42.0.7, 10.42.0.8")).toBe("10.42.0.7");
  });
});
