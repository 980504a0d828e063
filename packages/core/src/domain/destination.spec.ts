import { describe, expect, it } from "vitest";
import { fencedDestination } from "./destination.js";

describe("fencedDestination", () => {
  it.each([
    "169.254.169.254",
    "169.254.0.1",
    "[fe80::1]",
    "fe80::a:b",
    "febf::1",
    "::ffff:169.254.169.254",
    "::ffff:a9fe:a9fe",
    "fd00:ec2::254",
    "[FD00:EC2:0:0:0:0:0:254]",
    "metadata.google.internal",
    "METADATA.GOOGLE.INTERNAL.",
    "metadata",
    "instance-data.ec2.internal",
  ])("refuses %s", (host) => {
    expect(fencedDestination(host)).toBeDefined();
  });

  it.each(["127.0.0.1", "10.0.0.1", "169.253.1.1", "::ffff:10.0.0.1", "169.255.0.1", "::1", "fec0::1", "fd00:ec2::253", "2001:db8::1", "vco.example.net", "metadata.example.net"])(
    "allows %s",
    (host) => {
      expect(fencedDestination(host)).toBeUndefined();
    },
  );
});
