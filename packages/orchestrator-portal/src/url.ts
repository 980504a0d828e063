import * as E from "fp-ts/lib/Either.js";
import { orchestratorRejected, type OrchestratorError } from "@sdwan-connections/core";

/** The portal methods this client calls, as `{group}/{method}` after `/portal/rest/`. */
export type PortalMethod =
  | "enterpriseProxy/getEnterpriseProxyProperty"
  | "enterprise/getEnterprise"
  | "enterpriseProxy/getEnterpriseProxyEnterprises"
  | "enterpriseProxy/getApiTokens"
  | "enterprise/getApiTokens"
  | "enterprise/refreshApiToken"
  | "enterpriseProxy/createApiToken"
  | "enterpriseProxy/downloadApiToken"
  | "enterpriseProxy/revokeApiToken";

/**
 * `{orchestratorUrl}/portal/rest/{method}`, whether or not the URL ends in "/"
 * and whatever path prefix it has (a reverse proxy's `/vco/`). Query and
 * fragment of the stored URL are not sent. Only http and https are spoken,
 * and a URL with user-info is refused: credentials travel only as the token.
 */
export const portalUrl = (orchestratorUrl: string, method: PortalMethod): E.Either<OrchestratorError, URL> => {
  let url: URL;
  try {
    url = new URL(orchestratorUrl);
  } catch {
    return E.left(orchestratorRejected("The orchestrator URL is not a valid absolute URL."));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return E.left(
      orchestratorRejected(`The orchestrator URL must use http or https, not '${url.protocol.replace(/:$/, "")}'.`),
    );
  if (url.username !== "" || url.password !== "")
    return E.left(orchestratorRejected("The orchestrator URL must not contain user information."));
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/portal/rest/${method}`;
  url.search = "";
  url.hash = "";
  return E.right(url);
};

/**
 * Whether `url`'s host name is in the allowlist: exact host names compared
 * case-insensitively (no wildcards, no subdomains); the port does not matter.
 */
export const isHostAllowed = (url: URL, allowedHosts: readonly string[] | undefined): boolean =>
  allowedHosts === undefined || isHostListed(url.hostname, allowedHosts);

/** Whether the allowlist names `hostname` itself (an explicit entry, as a fenced destination needs). */
export const isHostListed = (hostname: string, allowedHosts: readonly string[] | undefined): boolean => {
  const host = hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
  return allowedHosts !== undefined && allowedHosts.some((allowed) => allowed.replace(/\.$/, "") === host);
};
