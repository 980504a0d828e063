import { randomUUID } from "node:crypto";
import * as O from "fp-ts/lib/Option.js";
import { healthChangeDetail } from "../src/domain/audit.js";
import {
  ApiKey,
  auditEntryId,
  eventOf,
  keyExpiryDetail,
  type CloudEvent,
  type HealthState,
  type Alias,
  type AuditEntry,
  type Connection,
  type Customer,
  type OrchestratorUrl,
  type Webhook,
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

/** What `aCloudEvent` makes an event of: a change, a health state change or a key-expiry warning, of `alias` ("lab"). */
export type CloudEventSource = {
  readonly alias?: string;
  readonly actor?: string;
  /** The connection's orchestrator URL its entry kept; none when not given. */
  readonly orchestratorUrl?: string;
} & (
  | { readonly action: "add" | "update" | "delete" }
  | { readonly action: "health-change"; readonly from: HealthState; readonly to: HealthState; readonly reason?: string }
  | { readonly action: "key-expiring" | "key-expired"; readonly daysLeft: number }
  | { readonly action: "key-renewal-failed"; readonly reason: string }
);

/** The CloudEvent the service makes (`eventOf`) of the audit entry `source` describes. */
export const aCloudEvent = (source: CloudEventSource): CloudEvent => {
  const at = new Date("2026-11-25T20:00:00.000Z");
  const detail =
    source.action === "health-change"
      ? healthChangeDetail({ from: source.from, to: source.to, reason: source.reason ?? null })
      : source.action === "key-expiring" || source.action === "key-expired"
        ? keyExpiryDetail({
            expiresAt: new Date(at.getTime() + source.daysLeft * 24 * 3600 * 1000),
            daysLeft: source.daysLeft,
            source: "declared",
            threshold: Math.max(source.daysLeft, 0),
          })
        : source.action === "key-renewal-failed"
          ? source.reason
          : null;
  const event = eventOf(
    anAuditEntry({
      at,
      action: source.action,
      alias: (source.alias ?? "lab") as Alias,
      actor: source.actor ?? "admin",
      detail,
      ...(source.orchestratorUrl === undefined ? {} : { orchestratorUrl: source.orchestratorUrl }),
    }),
  );
  if (O.isNone(event)) throw new Error(`no event for ${JSON.stringify(source)}`);
  return event.value;
};

/** A webhook for tests (every event, CloudEvents); any field can be overridden. */
export const aWebhook = (fields: Partial<Webhook> = {}): Webhook => ({
  id: randomUUID(),
  url: "https://receiver.example/hook",
  types: ["*"],
  kind: "cloudevents",
  createdAt: new Date("2026-01-01T00:00:00.000Z"),
  disabledAt: null,
  ...fields,
});
