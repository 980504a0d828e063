import {
  ApiKey,
  auditEntryId,
  type Alias,
  type AuditEntry,
  type Connection,
  type Customer,
  type OrchestratorUrl,
} from "../src/index.js";

/** A connection for tests; every field can be overridden with plain strings. */
export const aConnection = (
  overrides: { readonly alias?: string; readonly orchestratorUrl?: string; readonly apiKey?: string } = {},
): Connection => ({
  alias: (overrides.alias ?? "lab") as Alias,
  orchestratorUrl: (overrides.orchestratorUrl ?? "https://orchestrator.example.net/") as OrchestratorUrl,
  apiKey: ApiKey.unsafeFrom(overrides.apiKey ?? "test-key-0123456789abcdef"),
});

/** A customer with every field filled, as the orchestrator-portal mapping produces it. */
export const aCustomer = (overrides: Partial<Customer> = {}): Customer => ({
  enterpriseId: "78a92010-9085-4d9c-9537-92eab2522697",
  id: 342,
  networkId: 1,
  gatewayPoolId: 2,
  bastionState: "UNCONFIGURED",
  alertsEnabled: true,
  operatorAlertsEnabled: true,
  name: "RALEIGH_LAB",
  domain: "rdulab",
  accountNumber: "RDU-foo",
  description: "",
  address: "PO Box 362",
  city: "Apex",
  state: "North Carolina",
  zip: "27502",
  country: "US",
  latitude: 35.77,
  longitude: -78.64,
  timezone: "America/New_York",
  locale: "en-US",
  ...overrides,
});

/** An audit entry for tests, at `at` (default now), with a fresh id. */
export const anAuditEntry = (overrides: Partial<Omit<AuditEntry, "id">> & { readonly at?: Date } = {}): AuditEntry => {
  const at = overrides.at ?? new Date();
  return {
    at,
    actor: "admin",
    requestId: "3f0c2a9e-5b7d-4c1a-9e8f-0a1b2c3d4e5f",
    action: "update",
    alias: "lab" as Alias,
    fields: ["apiKey"],
    forced: false,
    validation: "valid",
    outcome: "succeeded",
    failure: null,
    detail: null,
    ...overrides,
    id: auditEntryId(at),
  };
};

const jwtPart = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** A JWT as an orchestrator hands out API tokens, with these claims; its signature is never checked, so any bytes do. */
export const aJwt = (claims: Record<string, unknown>): string =>
  `${jwtPart({ alg: "HS256", typ: "JWT" })}.${jwtPart(claims)}.c2lnbmF0dXJl`;
