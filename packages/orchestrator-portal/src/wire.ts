import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as t from "io-ts";
import { ApiKeyCodec, writableTime, type ApiToken, type Customer } from "@sdwan-connections/core";

/**
 * The most bytes of an answer that are ever parsed into values at once (`JSON.parse`): a whole answer that is not a
 * list of enterprises (an identification, an error), or one enterprise of a list. Each is a few KiB in practice (a
 * simulator's enterprise about 650 bytes); parsing 1 MiB of the worst JSON (`[[],[],…]`) takes about 24 MiB.
 */
export const PARSE_LIMIT_BYTES = 1024 * 1024;

/** The portal's failure body (Swagger definition `error`). */
export const ErrorBody = t.type({ error: t.type({ code: t.number, message: t.string }) }, "ErrorBody");

/** Of getEnterpriseProxyProperty's answer only the partner id matters. */
export const ProxyProperty = t.type({ enterpriseProxyId: t.Int }, "ProxyProperty");

/** Of getEnterprise's answer only the enterprise id matters. */
export const EnterpriseIdentity = t.type({ id: t.Int }, "EnterpriseIdentity");

const optional = <C extends t.Mixed>(codec: C) => t.union([codec, t.null, t.undefined]);

/**
 * Of an `api_token`: its id (what revoking names it by), uuid and expiry (RFC 3339), and the user it was made for
 * (what a new token for that user names); a token without an id or a uuid names no key.
 */
export const ApiTokenWire = t.intersection(
  [
    t.type({ id: t.Int, tokenUuid: t.string, expiration: optional(t.string) }),
    t.partial({ createdForEnterpriseUserId: optional(t.Int) }),
  ],
  "ApiToken",
);

/** getApiTokens' answer: an array of `api_token` (the Swagger's result is one, which is taken too). */
export const ApiTokens = t.union([t.array(ApiTokenWire), ApiTokenWire], "ApiTokens");

/** The tokens of a getApiTokens answer, an expiry that is no time read as unknown. */
export const toApiTokens = (answer: t.TypeOf<typeof ApiTokens>): readonly ApiToken[] =>
  (Array.isArray(answer) ? answer : [answer]).map(({ id, tokenUuid, expiration }) => {
    const expiresAt = typeof expiration === "string" ? new Date(expiration) : undefined;
    return {
      id,
      tokenUuid,
      // Beyond what RFC 3339 writes (year 9999), as no time: every time the service shows is RFC 3339.
      expiresAt: expiresAt === undefined || Number.isNaN(expiresAt.getTime()) ? undefined : writableTime(expiresAt),
    };
  });

/** refreshApiToken's and downloadApiToken's answer (Swagger `downloaded_api_token`): the new key, held as one at once. */
export const DownloadedToken = t.type({ token: ApiKeyCodec }, "DownloadedToken");

/** createApiToken's answer (Swagger `insertion_confirmation`): of it only the new token's id matters. */
export const InsertionConfirmation = t.type({ id: t.Int }, "InsertionConfirmation");

/** revokeApiToken's answer (Swagger `rows_modified_confirmation`); 0 rows is a token revoked before. */
export const RowsModified = t.type({ rows: t.number }, "RowsModified");

/** Rounds to 6 decimals, half away from zero, so -0.0000005 does not become -0. */
export const round6 = (value: number | null | undefined): number | null => {
  if (value === null || value === undefined) return null;
  const rounded = (Math.sign(value) * Math.round(Math.abs(value) * 1e6)) / 1e6;
  return rounded === 0 ? 0 : rounded;
};

/**
 * How a Customer field is made of its enterprise field, and the type that field must have (its codec): a
 * required one as it is; a missing text as "", a missing integer as null; a flag (Swagger's `tinyint` 0/1, a
 * boolean tolerated, anything else garbage) as a boolean, null when missing; a coordinate rounded to 6 decimals.
 */
const CONVERSIONS = {
  "required-text": { codec: t.string, convert: (value: string): string => value },
  "required-integer": { codec: t.Int, convert: (value: number): number => value },
  text: { codec: optional(t.string), convert: (value: string | null | undefined): string => value ?? "" },
  integer: { codec: optional(t.Int), convert: (value: number | null | undefined): number | null => value ?? null },
  flag: {
    codec: optional(t.union([t.literal(0), t.literal(1), t.boolean])),
    convert: (value: 0 | 1 | boolean | null | undefined): boolean | null =>
      value === null || value === undefined ? null : value === 1 || value === true,
  },
  coordinate: { codec: optional(t.number), convert: round6 },
} as const;
export type Conversion = keyof typeof CONVERSIONS;

/**
 * ORCHESTRATOR.md's mapping, the one description of an orchestrator `enterprise` as far as this client reads
 * it: every Customer field, in Customer's order, with the enterprise field it comes from and its conversion.
 * `Enterprise` (the codec), `toCustomer` and the customers JSON scanner (customers-json/scanner.ts) are all
 * made of it. `bastionState` is any string: the API calls new enum values backward-compatible.
 */
export const CUSTOMER_MAPPING = [
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
] as const satisfies readonly (readonly [keyof Customer, string, Conversion])[];

type EnterpriseProps = {
  readonly [Row in (typeof CUSTOMER_MAPPING)[number] as Row[1]]: (typeof CONVERSIONS)[Row[2]]["codec"];
};
const ENTERPRISE_FIELDS = CUSTOMER_MAPPING.map(
  ([, from, conversion]) => [from, CONVERSIONS[conversion].codec] as const,
);

/**
 * An orchestrator `enterprise`, as `CUSTOMER_MAPPING` reads it: `id` and `logicalId` required; every other
 * field may be missing or null, but if present must have its documented type.
 */
export const Enterprise = t.type(Object.fromEntries(ENTERPRISE_FIELDS) as EnterpriseProps, "Enterprise");
export type Enterprise = t.TypeOf<typeof Enterprise>;

/** ORCHESTRATOR.md's mapping (`CUSTOMER_MAPPING`), producing exactly Customer's 20 keys in its order. */
export const toCustomer = (e: Enterprise): Customer => {
  const customer: Record<string, unknown> = {};
  for (const [field, from, conversion] of CUSTOMER_MAPPING)
    customer[field] = (CONVERSIONS[conversion].convert as (value: unknown) => unknown)(e[from]);
  return customer as Customer;
};

const FIELD_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(Enterprise.props),
  ...Object.keys(ErrorBody.props),
  ...Object.keys(ProxyProperty.props),
  ...Object.keys(EnterpriseIdentity.props),
  ...ApiTokenWire.types.flatMap((part) => Object.keys(part.props)),
  ...Object.keys(DownloadedToken.props),
  ...Object.keys(InsertionConfirmation.props),
  ...Object.keys(RowsModified.props),
]);

/**
 * Which fields failed to decode, by name only: never the offending values,
 * which come from the network and could be anything.
 */
export const describeDecodeFailure = (errors: t.Errors): string => {
  const fields = new Set(
    errors.map(
      (error) =>
        error.context
          .map((entry) => entry.key)
          .filter((key) => FIELD_NAMES.has(key))
          .at(-1) ?? "(shape)",
    ),
  );
  return [...fields].slice(0, 5).join(", ");
};

/**
 * `Enterprise.is` as `Enterprise.decode` means it: a record whose every field passes its codec, an absent field
 * reading as undefined (io-ts's own `is` wants every key present, which decode does not). Without io-ts's
 * per-value Either and closures: the general path asks it of each enterprise.
 */
const isEnterprise = (u: unknown): u is Enterprise =>
  typeof u === "object" &&
  u !== null &&
  !Array.isArray(u) &&
  ENTERPRISE_FIELDS.every(([from, codec]) => codec.is((u as Readonly<Record<string, unknown>>)[from]));

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
  for (const [index, item] of body.entries()) {
    const customer = decodeCustomer(item, index);
    if (E.isLeft(customer)) return customer;
    customers.push(customer.right);
  }
  return E.right(customers);
};
