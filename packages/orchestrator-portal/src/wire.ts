import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as t from "io-ts";
import type { Customer } from "@sdwan-connections/core";

/** The portal's failure body (Swagger definition `error`). */
export const ErrorBody = t.type({ error: t.type({ code: t.number, message: t.string }) }, "ErrorBody");

/** Of getEnterpriseProxyProperty's answer only the partner id matters. */
export const ProxyProperty = t.type({ enterpriseProxyId: t.Int }, "ProxyProperty");

/** Of getEnterprise's answer only the enterprise id matters. */
export const EnterpriseIdentity = t.type({ id: t.Int }, "EnterpriseIdentity");

const optional = <C extends t.Mixed>(codec: C) => t.union([codec, t.null, t.undefined]);
const text = optional(t.string);
const num = optional(t.number);
const int = optional(t.Int);
// Swagger's `tinyint` is 0/1; a boolean is tolerated, anything else is garbage.
const tinyint = optional(t.union([t.literal(0), t.literal(1), t.boolean]));

/**
 * An orchestrator `enterprise`, as far as the Customer mapping reads it.
 * `id` and `logicalId` are required; every other field may be missing or
 * null, but if present must have its documented type. `bastionState` is any
 * string: the API calls new enum values backward-compatible.
 */
export const Enterprise = t.type(
  {
    id: t.Int,
    logicalId: t.string,
    // A flat t.type (absent keys read as undefined) decodes faster than intersection + partial.
    networkId: int,
    gatewayPoolId: int,
    bastionState: text,
    alertsEnabled: tinyint,
    operatorAlertsEnabled: tinyint,
    name: text,
    domain: text,
    accountNumber: text,
    description: text,
    streetAddress: text,
    city: text,
    state: text,
    postalCode: text,
    country: text,
    lat: num,
    lon: num,
    timezone: text,
    locale: text,
  },
  "Enterprise",
);
export type Enterprise = t.TypeOf<typeof Enterprise>;

const str = (value: string | null | undefined): string => value ?? "";
const numOrNull = (value: number | null | undefined): number | null => value ?? null;
const flag = (value: 0 | 1 | boolean | null | undefined): boolean | null => (value === null || value === undefined ? null : value === 1 || value === true);

/** Rounds to 6 decimals, half away from zero, so -0.0000005 does not become -0. */
export const round6 = (value: number | null | undefined): number | null => {
  if (value === null || value === undefined) return null;
  const rounded = (Math.sign(value) * Math.round(Math.abs(value) * 1e6)) / 1e6;
  return rounded === 0 ? 0 : rounded;
};

/** ORCHESTRATOR.md's mapping, producing exactly Customer's 20 keys in its order. */
export const toCustomer = (e: Enterprise): Customer => ({
  enterpriseId: e.logicalId,
  id: e.id,
  networkId: numOrNull(e.networkId),
  gatewayPoolId: numOrNull(e.gatewayPoolId),
  bastionState: str(e.bastionState),
  alertsEnabled: flag(e.alertsEnabled),
  operatorAlertsEnabled: flag(e.operatorAlertsEnabled),
  name: str(e.name),
  domain: str(e.domain),
  accountNumber: str(e.accountNumber),
  description: str(e.description),
  address: str(e.streetAddress),
  city: str(e.city),
  state: str(e.state),
  zip: str(e.postalCode),
  country: str(e.country),
  latitude: round6(e.lat),
  longitude: round6(e.lon),
  timezone: str(e.timezone),
  locale: str(e.locale),
});

const FIELD_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(Enterprise.props),
  ...Object.keys(ErrorBody.props),
  ...Object.keys(ProxyProperty.props),
  ...Object.keys(EnterpriseIdentity.props),
]);

/**
 * Which fields failed to decode, by name only: never the offending values,
 * which come from the network and could be anything.
 */
export const describeDecodeFailure = (errors: t.Errors): string => {
  const fields = new Set(errors.map((error) => error.context.map((entry) => entry.key).filter((key) => FIELD_NAMES.has(key)).at(-1) ?? "(shape)"));
  return [...fields].slice(0, 5).join(", ");
};

/** Decodes and maps a getEnterpriseProxyEnterprises answer; any bad enterprise makes it all garbage. */
export const decodeCustomers = (body: unknown): E.Either<string, readonly Customer[]> => {
  if (!Array.isArray(body)) return E.left("the answer is not an array");
  const customers: Customer[] = [];
  for (const [index, item] of body.entries()) {
    const decoded = Enterprise.decode(item);
    if (E.isLeft(decoded)) return E.left(`enterprise [${index}] has a missing or invalid ${pipe(decoded.left, describeDecodeFailure)}`);
    customers.push(toCustomer(decoded.right));
  }
  return E.right(customers);
};
