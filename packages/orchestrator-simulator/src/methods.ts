/** The portal methods served, as `{group}/{method}` after `/portal/rest/`. */
export const PORTAL_METHODS = [
  "enterpriseProxy/getEnterpriseProxyProperty",
  "enterprise/getEnterprise",
  "enterpriseProxy/getEnterpriseProxyEnterprises",
  "enterpriseProxy/getApiTokens",
  "enterprise/getApiTokens",
  "enterprise/refreshApiToken",
  "enterpriseProxy/createApiToken",
  "enterpriseProxy/downloadApiToken",
  "enterpriseProxy/revokeApiToken",
] as const;
export type PortalMethod = (typeof PORTAL_METHODS)[number];

// JSON-RPC error codes, as the portal uses them in its `error` bodies.
export const PARSE_ERROR = -32700;
export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;
export const SERVER_ERROR = -32603;
export const TOKEN_ERROR = -32000;

export const zeroCounts = (): Record<PortalMethod, number> =>
  Object.fromEntries(PORTAL_METHODS.map((method) => [method, 0])) as Record<PortalMethod, number>;
