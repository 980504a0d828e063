import { BlockList, isIP } from "node:net";
import type { Network } from "@sdwan-connections/composition";

/** The client's address of a request: from its peer and its `X-Forwarded-For` header (undefined when absent). */
export type ClientAddress = (peer: string | undefined, forwardedFor: string | undefined) => string;

const familyOf = (address: string): "ipv4" | "ipv6" => (isIP(address) === 4 ? "ipv4" : "ipv6");

/**
 * Who the client is, behind the proxies of `trusted` (SDWAN_TRUSTED_PROXIES).
 * The peer is the client unless it is a trusted proxy; then `X-Forwarded-For`
 * is read from the right (each proxy appends the address it received from),
 * and the first address that is not itself a trusted proxy is the client.
 * The entries left of it were written by the client and are never believed.
 * An entry that is not an address ends the walk at the proxy that forwarded it.
 */
export const clientAddressBehind = (trusted: readonly Network[]): ClientAddress => {
  const proxies = new BlockList();
  for (const { address, prefix, family } of trusted) proxies.addSubnet(address, prefix, family);
  const isProxy = (address: string): boolean => proxies.check(address, familyOf(address));

  return (peer, forwardedFor) => {
    let client = peer ?? "unknown";
    if (trusted.length === 0 || forwardedFor === undefined || isIP(client) === 0 || !isProxy(client)) return client;
    const hops = forwardedFor.split(",");
    for (let i = hops.length - 1; i >= 0; i -= 1) {
      const hop = (hops[i] as string).trim();
      if (isIP(hop) === 0) return client;
      client = hop;
      if (!isProxy(hop)) return client;
    }
    return client;
  };
};
