import type { Customer } from "@sdwan-connections/core";

// ORCHESTRATOR.md's table, written out independently of src/wire.ts so the
// tests check the mapping rather than repeat it.
const TABLE: readonly (readonly [keyof Customer, string, "string" | "number" | "flag" | "coordinate"])[] = [
  ["enterpriseId", "logicalId", "string"],
  ["id", "id", "number"],
  ["networkId", "networkId", "number"],
  ["gatewayPoolId", "gatewayPoolId", "number"],
  ["bastionState", "bastionState", "string"],
  ["alertsEnabled", "alertsEnabled", "flag"],
  ["operatorAlertsEnabled", "operatorAlertsEnabled", "flag"],
  ["name", "name", "string"],
  ["domain", "domain", "string"],
  ["accountNumber", "accountNumber", "string"],
  ["description", "description", "string"],
  ["address", "streetAddress", "string"],
  ["city", "city", "string"],
  ["state", "state", "string"],
  ["zip", "postalCode", "string"],
  ["country", "country", "string"],
  ["latitude", "lat", "coordinate"],
  ["longitude", "lon", "coordinate"],
  ["timezone", "timezone", "string"],
  ["locale", "locale", "string"],
];

/** The Customer an enterprise of the sample should become. */
export const expectedCustomer = (enterprise: Readonly<Record<string, unknown>>): Customer => {
  const out: Record<string, unknown> = {};
  for (const [field, source, kind] of TABLE) {
    const value = enterprise[source];
    if (kind === "string") out[field] = typeof value === "string" ? value : "";
    else if (kind === "number") out[field] = typeof value === "number" ? value : null;
    else if (kind === "flag") out[field] = value === 1 ? true : value === 0 ? false : null;
    else out[field] = typeof value === "number" ? Number(value.toFixed(6)) : null;
  }
  return out as Customer;
};
