import * as E from "fp-ts/lib/Either.js";

// node:net loaded when first asked (most CLI commands never do: it weighs on their start).
const isIP = (input: string): number => process.getBuiltinModule("node:net").isIP(input);

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

const LINK_LOCAL = "is a link-local address (where cloud metadata services answer)";
const METADATA = "is a cloud metadata service";

/**
 * Cloud metadata services outside the link-local ranges (those at
 * 169.254.169.254 — AWS, GCP, Azure, Oracle, OpenStack, DigitalOcean … — and
 * Tencent's 169.254.0.23 are link-local).
 */
const METADATA_IPV4: ReadonlySet<string> = new Set([
  "100.100.100.200", // Alibaba Cloud
  "192.0.0.192", // Oracle Cloud (older instances)
  "168.63.129.16", // Azure's host platform ("WireServer")
]);
const METADATA_IPV6: ReadonlySet<string> = new Set([
  "fd00:ec2::254", // AWS (Nitro, IPv6)
  "fd20:ce::254", // GCP (IPv6)
]);

/** Why this service must not connect to an IPv4 address, given as four octets. */
const fencedIpv4 = (octets: readonly number[]): string | undefined => {
  if (octets[0] === 169 && octets[1] === 254) return LINK_LOCAL;
  return METADATA_IPV4.has(octets.join(".")) ? METADATA : undefined;
};

/** An IPv6 address (any spelling, a zone ignored) as the URL parser writes it: RFC 5952, hex only, at most one "::". */
const canonicalIpv6 = (address: string): string | undefined =>
  isIP(address) === 6 ? new URL(`http://[${address.split("%")[0]}]`).hostname.slice(1, -1) : undefined;

/** The 16 bytes of a canonical IPv6 address. */
const ipv6Bytes = (canonical: string): number[] => {
  const [head = "", tail] = canonical.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)));
  const [left, right] = [groups(head), tail === undefined ? [] : groups(tail)];
  const hextets = [...left, ...Array.from({ length: 8 - left.length - right.length }, () => 0), ...right];
  return hextets.flatMap((hextet) => [hextet >> 8, hextet & 0xff]);
};

const startsWith = (bytes: readonly number[], prefix: readonly number[]) =>
  prefix.every((byte, i) => bytes[i] === byte);
const pick = (bytes: readonly number[], positions: readonly number[]) => positions.map((i) => bytes[i] ?? 0);

/**
 * The IPv4 addresses an IPv6 address carries, with the form that carries
 * them: IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96),
 * IPv4-compatible (::/96), NAT64 with the well-known prefix (64:ff9b::/96) or
 * the local-use one (64:ff9b:1::/48, at each position RFC 6052 allows for its
 * prefix lengths), 6to4 (2002::/16) and Teredo (2001::/32: its server, and its
 * client stored inverted).
 */
const embeddedIpv4 = (bytes: readonly number[]): { readonly form: string; readonly octets: number[] }[] => {
  const zeros = (n: number) => Array.from({ length: n }, () => 0);
  const last4 = [12, 13, 14, 15];
  if (startsWith(bytes, [...zeros(10), 0xff, 0xff])) return [{ form: "IPv4-mapped", octets: pick(bytes, last4) }];
  if (startsWith(bytes, [...zeros(8), 0xff, 0xff, 0, 0]))
    return [{ form: "IPv4-translated", octets: pick(bytes, last4) }];
  if (startsWith(bytes, zeros(12))) return [{ form: "IPv4-compatible", octets: pick(bytes, last4) }];
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, ...zeros(8)])) return [{ form: "NAT64", octets: pick(bytes, last4) }];
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 1]))
    // RFC 6052 §2.2: prefix lengths /48, /56, /64 and /96 (byte 8 is reserved).
    return [[6, 7, 9, 10], [7, 9, 10, 11], [9, 10, 11, 12], last4].map((positions) => ({
      form: "local-use NAT64",
      octets: pick(bytes, positions),
    }));
  if (startsWith(bytes, [0x20, 0x02])) return [{ form: "6to4", octets: pick(bytes, [2, 3, 4, 5]) }];
  if (startsWith(bytes, [0x20, 0x01, 0, 0]))
    return [
      { form: "Teredo server", octets: pick(bytes, [4, 5, 6, 7]) },
      { form: "Teredo client", octets: pick(bytes, last4).map((byte) => byte ^ 0xff) },
    ];
  return [];
};

const ADMITTED: E.Either<string, void> = E.right(undefined);

/**
 * Whether this service may connect to `host` (a host name or an IP address,
 * IPv6 with or without brackets); refused, with the reason, are link-local
 * addresses (169.254.0.0/16, fe80::/10), where cloud metadata services answer,
 * those services' own names and addresses (Alibaba's 100.100.100.200,
 * Oracle's 192.0.0.192, AWS's fd00:ec2::254, …), and every IPv6 address that
 * carries such an IPv4 address (judged by the address it carries). An
 * operator may still allow one explicitly (SDWAN_ORCHESTRATOR_ALLOWED_HOSTS).
 */
export const admitsDestination = (host: string): E.Either<string, void> => {
  const name = host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
  if (METADATA_HOST_NAMES.includes(name)) return E.left(METADATA);
  if (isIP(name) === 4) {
    const reason = fencedIpv4(name.split(".").map(Number));
    return reason === undefined ? ADMITTED : E.left(reason);
  }
  const v6 = canonicalIpv6(name);
  if (v6 === undefined) return ADMITTED;
  if (METADATA_IPV6.has(v6)) return E.left(METADATA);
  const bytes = ipv6Bytes(v6);
  if (bytes[0] === 0xfe && ((bytes[1] ?? 0) & 0xc0) === 0x80) return E.left(LINK_LOCAL);
  for (const { form, octets } of embeddedIpv4(bytes)) {
    const reason = fencedIpv4(octets);
    if (reason !== undefined) return E.left(`embeds ${octets.join(".")} (${form}), which ${reason}`);
  }
  return ADMITTED;
};
