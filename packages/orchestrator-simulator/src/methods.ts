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

export const zeroCounts = (): Record<PortalMethod, number> =>
  Object.fromEntries(PORTAL_METHODS.map((method) => [method, 0])) as Record<PortalMethod, number>;
