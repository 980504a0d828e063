import { describe, expect, it } from "vitest";
import * as E from "fp-ts/lib/Either.js";
import { admitsDestination } from "./destination.js";

describe("admitsDestination", () => {
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
    // Issue 19, item 6: other clouds' metadata addresses, and every IPv6 form that embeds a fenced IPv4 address.
    "100.100.100.200",
    "192.0.0.192",
    "168.63.129.16",
    "[fd20:ce::254]",
    "169.254.0.23",
    "[64:ff9b::a9fe:a9fe]",
    "64:ff9b::169.254.169.254",
    "[64:ff9b::6464:64c8]",
    "[::a9fe:a9fe]",
    "::169.254.169.254",
    "[::ffff:100.100.100.200]",
    "[::ffff:0:a9fe:a9fe]",
    "[64:ff9b:1::a9fe:a9fe]",
    "[64:ff9b:1:a9fe:a9:fe00::]",
    "[64:ff9b:1:a9:fe:a9fe::]",
    "[64:ff9b:1:0:a9:fea9:fe00:0]",
    "[2002:a9fe:a9fe::1]",
    "[2002:c000:00c0::]",
    "[2001:0:a9fe:a9fe::1]",
    "[2001:0:4136:e378:8000:63bf:5601:5601]",
    "[fe80::1%25eth0]",
    "METADATA.GOOGLE.INTERNAL.",
    "metadata",
    "instance-data.ec2.internal",
  ])("refuses %s", (host) => {
    expect(E.isLeft(admitsDestination(host))).toBe(true);
  });

  it("names the IPv4 address an IPv6 form embeds, and how", () => {
    expect(admitsDestination("[64:ff9b::a9fe:a9fe]")).toEqual(
      E.left("embeds 169.254.169.254 (NAT64), which is a link-local address (where cloud metadata services answer)"),
    );
    expect(admitsDestination("[::ffff:100.100.100.200]")).toEqual(
      E.left("embeds 100.100.100.200 (IPv4-mapped), which is a cloud metadata service"),
    );
  });

  it.each([
    "127.0.0.1",
    "10.0.0.1",
    "169.253.1.1",
    "::ffff:10.0.0.1",
    "169.255.0.1",
    "::1",
    "fec0::1",
    "fd00:ec2::253",
    "2001:db8::1",
    "vco.example.net",
    "metadata.example.net",
    "100.100.100.201",
    "192.0.0.193",
    "64:ff9b::a00:1",
    "2002:a00:1::1",
    "2001:0:a00:1::1",
    "2a00:1450::a9fe:a9fe",
  ])("allows %s", (host) => {
    expect(admitsDestination(host)).toEqual(E.right(undefined));
  });
});
