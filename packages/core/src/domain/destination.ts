import { isIP } from "node:net";

/** Cloud instance-metadata services' host names: no orchestrator lives there. */
export const METADATA_HOST_NAMES: readonly string[] = [
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.azure.com",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.tencentyun.com",
];

/** An IPv6 address in its canonical form (RFC 5952, as URLs write it), or undefined. */
const canonicalIpv6 = (address: string): string | undefined =>
  isIP(address) === 6 ? new URL(`http://[${address.split("%")[0]}]`).hostname.slice(1, -1) : undefined;

/** The octets of an IPv4 address, also when written as an IPv4-mapped IPv6 address (::ffff:a9fe:a9fe). */
const ipv4Octets = (address: string): number[] | undefined => {
  if (isIP(address) === 4) return address.split(".").map(Number);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonicalIpv6(address) ?? "");
  if (mapped === null) return undefined;
  const [high, low] = [Number.parseInt(mapped[1] ?? "0", 16), Number.parseInt(mapped[2] ?? "0", 16)];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff];
};

/**
 * Why this service must not connect to `host` (a host name or an IP address,
 * IPv6 with or without brackets), or undefined when it may: link-local
 * addresses (169.254.0.0/16, fe80::/10), where cloud metadata services answer,
 * and those services' own names and addresses. An operator may still allow one
 * explicitly (SDWAN_ORCHESTRATOR_ALLOWED_HOSTS).
 */
export const fencedDestination = (host: string): string | undefined => {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
  if (METADATA_HOST_NAMES.includes(name)) return "is a cloud metadata service";
  const v4 = ipv4Octets(name);
  if (v4 !== undefined) return v4[0] === 169 && v4[1] === 254 ? "is a link-local address (where cloud metadata services answer)" : undefined;
  const v6 = canonicalIpv6(name);
  if (v6 === undefined) return undefined;
  if (v6 === "fd00:ec2::254") return "is a cloud metadata service";
  const first = Number.parseInt(v6.split(":")[0] || "0", 16);
  return (first & 0xffc0) === 0xfe80 ? "is a link-local address (where cloud metadata services answer)" : undefined;
};
