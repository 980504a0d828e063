import { lookup as dnsLookup } from "node:dns";
import type { LookupFunction } from "node:net";
import { admitsDestination } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";

/**
 * The agents' DNS lookup, with the fence applied to what a name resolves to
 * (a name can change to a link-local or metadata address after it was
 * admitted): such an answer fails the connection with EFENCED, unless the
 * allowlist names the host itself.
 */
export const fencedLookup =
  (
    allowedHosts: readonly string[] | undefined,
    resolve: LookupFunction = dnsLookup as LookupFunction,
  ): LookupFunction =>
  (hostname, options, callback) =>
    resolve(hostname, options, (error, address, family) => {
      const addresses = typeof address === "string" ? [address] : (address ?? []).map((entry) => entry.address);
      if (
        error === null &&
        !isHostListed(hostname, allowedHosts) &&
        addresses.some((one) => E.isLeft(admitsDestination(one)))
      ) {
        callback(Object.assign(new Error("fenced destination"), { code: "EFENCED" }), address, family);
        return;
      }
      callback(error, address, family);
    });

/** Whether the allowlist names `hostname` itself (an explicit entry, as a fenced destination needs). */
export const isHostListed = (hostname: string, allowedHosts: readonly string[] | undefined): boolean => {
  const host = hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
  return allowedHosts !== undefined && allowedHosts.some((allowed) => allowed.replace(/\.$/, "") === host);
};
