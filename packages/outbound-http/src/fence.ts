import { lookup as dnsLookup } from "node:dns";
import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { LookupFunction } from "node:net";
import { rootCertificates } from "node:tls";
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

/** Whether a host may be connected to: not link-local or cloud metadata (SPEC §4), unless the allowlist names it. */
export const admitsHost = (hostname: string, allowedHosts: readonly string[] | undefined): E.Either<string, void> =>
  isHostListed(hostname, allowedHosts)
    ? E.right(undefined)
    : E.mapLeft((why) => `${why}: refused unless SDWAN_ORCHESTRATOR_ALLOWED_HOSTS names it`)(
        admitsDestination(hostname),
      );

/**
 * The keep-alive agents of every client that calls out, chosen by protocol: a name is fenced once resolved
 * (`fencedLookup`; an address written as such is not looked up, so each caller checks it with `admitsHost`), and
 * https trusts `ca` beside Node's own roots. `close` frees their sockets.
 */
export const fencedAgents = (options: {
  readonly allowedHosts?: readonly string[] | undefined;
  readonly ca?: readonly string[] | undefined;
  readonly maxSockets?: number;
}) => {
  const { ca = [], maxSockets } = options;
  const shared = { keepAlive: true, maxSockets, lookup: fencedLookup(options.allowedHosts) };
  const http = new HttpAgent(shared);
  const https = new HttpsAgent({ ...shared, ...(ca.length === 0 ? {} : { ca: [...rootCertificates, ...ca] }) });
  return {
    agent: (url: URL): HttpAgent => (url.protocol === "https:" ? https : http),
    close: () => {
      http.destroy();
      https.destroy();
    },
  };
};
