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

/**
 * How a Customer field is made of its enterprise field: a required one as it is; a missing text as "", a
 * missing integer as null; a tinyint flag as a boolean (null when missing); a coordinate rounded to 6 decimals.
 */
export type Conversion = "required-text" | "required-integer" | "text" | "integer" | "flag" | "coordinate";

/**
 * ORCHESTRATOR.md's mapping: every Customer field, in Customer's order, with the enterprise field it comes
 * from and its conversion. `toCustomer` applies it to values; the customers JSON writer
 * (customers-json.ts) to the answer's bytes.
 */
export const CUSTOMER_MAPPING: readonly (readonly [keyof Customer, keyof Enterprise, Conversion])[] = [
  ["enterpriseId", "logicalId", "required-text"],
  ["id", "id", "required-integer"],
  ["networkId", "networkId", "integer"],
  ["gatewayPoolId", "gatewayPoolId", "integer"],
  ["bastionState", "bastionState", "text"],
  ["alertsEnabled", "alertsEnabled", "flag"],
  ["operatorAlertsEnabled", "operatorAlertsEnabled", "flag"],
  ["name", "name", "text"],
  ["domain", "domain", "text"],
  ["accountNumber", "accountNumber", "text"],
  ["description", "description", "text"],
  ["address", "streetAddress", "text"],
  ["city", "city", "text"],
  ["state", "state", "text"],
  ["zip", "postalCode", "text"],
  ["country", "country", "text"],
  ["latitude", "lat", "coordinate"],
  ["longitude", "lon", "coordinate"],
  ["timezone", "timezone", "text"],
  ["locale", "locale", "text"],
];

const CONVERT: Readonly<Record<Conversion, (value: never) => unknown>> = {
  "required-text": (value: string) => value,
  "required-integer": (value: number) => value,
  text: str,
  integer: numOrNull,
  flag,
  coordinate: round6,
};

/** ORCHESTRATOR.md's mapping (`CUSTOMER_MAPPING`), producing exactly Customer's 20 keys in its order. */
export const toCustomer = (e: Enterprise): Customer => {
  const customer: Record<string, unknown> = {};
  for (const [field, from, conversion] of CUSTOMER_MAPPING) customer[field] = CONVERT[conversion](e[from] as never);
  return customer as Customer;
};

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

// Guards equal to the codecs above, for the fast path: each asks what its codec's `is` asks, without
// io-ts's per-value Either and closures (wire.spec.ts checks each against io-ts on every kind of JSON value).
const isText = (u: unknown): boolean => typeof u === "string" || u === null || u === undefined;
const isNum = (u: unknown): boolean => typeof u === "number" || u === null || u === undefined;
const isInt = (u: unknown): boolean => Number.isInteger(u) || u === null || u === undefined;
const isTinyint = (u: unknown): boolean => u === 0 || u === 1 || typeof u === "boolean" || u === null || u === undefined;

/**
 * `Enterprise.is` as `Enterprise.decode` means it: a record whose every field
 * passes its codec, an absent field reading as undefined (io-ts's own `is`
 * wants every key present, which decode does not).
 */
export const isEnterprise = (u: unknown): u is Enterprise => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false;
  const e = u as Readonly<Record<keyof Enterprise, unknown>>;
  return (
    Number.isInteger(e.id) &&
    typeof e.logicalId === "string" &&
    isInt(e.networkId) &&
    isInt(e.gatewayPoolId) &&
    isText(e.bastionState) &&
    isTinyint(e.alertsEnabled) &&
    isTinyint(e.operatorAlertsEnabled) &&
    isText(e.name) &&
    isText(e.domain) &&
    isText(e.accountNumber) &&
    isText(e.description) &&
    isText(e.streetAddress) &&
    isText(e.city) &&
    isText(e.state) &&
    isText(e.postalCode) &&
    isText(e.country) &&
    isNum(e.lat) &&
    isNum(e.lon) &&
    isText(e.timezone) &&
    isText(e.locale)
  );
};

/**
 * One enterprise of a getEnterpriseProxyEnterprises answer (the `index`th) as
 * a Customer, or why not. An enterprise the guard passes is mapped as it is
 * (io-ts's decoding changes no value, it only copies the object when a key is
 * absent); any other is decoded by io-ts, which names the bad fields: the
 * reason is always io-ts's.
 */
export const decodeCustomer = (item: unknown, index: number): E.Either<string, Customer> => {
  if (isEnterprise(item)) return E.right(toCustomer(item));
  const decoded = Enterprise.decode(item);
  return E.isRight(decoded)
    ? E.right(toCustomer(decoded.right))
    : E.left(`enterprise [${index}] has a missing or invalid ${pipe(decoded.left, describeDecodeFailure)}`);
};

/** Decodes and maps a getEnterpriseProxyEnterprises answer in one pass; any bad enterprise makes it all garbage. */
export const decodeCustomers = (body: unknown): E.Either<string, readonly Customer[]> => {
  if (!Array.isArray(body)) return E.left("the answer is not an array");
  const customers: Customer[] = [];
  for (let index = 0; index < body.length; index += 1) {
    const item: unknown = body[index];
    if (isEnterprise(item)) customers.push(toCustomer(item));
    else {
      const customer = decodeCustomer(item, index);
      if (E.isLeft(customer)) return customer;
      customers.push(customer.right);
    }
  }
  return E.right(customers);
};
