import * as t from "io-ts";

/** An integer, typed as a plain number (io-ts's `t.Int` brands it, which every builder would then have to cast). */
const integer = new t.Type<number, number, unknown>(
  "integer",
  (u): u is number => Number.isInteger(u),
  (u, context) => (Number.isInteger(u) ? t.success(u as number) : t.failure(u, context)),
  t.identity,
);
const nullableInteger = t.union([integer, t.null]);
const nullableNumber = t.union([t.number, t.null]);
const nullableBoolean = t.union([t.boolean, t.null]);

/**
 * A customer (enterprise) of a partner connection: exactly the 20 fields of
 * the interface, in its order. Missing strings are "", missing numbers and
 * flags are null (never an invented 0 or false).
 */
export const Customer = t.strict(
  {
    enterpriseId: t.string,
    id: integer,
    networkId: nullableInteger,
    gatewayPoolId: nullableInteger,
    bastionState: t.string,
    alertsEnabled: nullableBoolean,
    operatorAlertsEnabled: nullableBoolean,
    name: t.string,
    domain: t.string,
    accountNumber: t.string,
    description: t.string,
    address: t.string,
    city: t.string,
    state: t.string,
    zip: t.string,
    country: t.string,
    latitude: nullableNumber,
    longitude: nullableNumber,
    timezone: t.string,
    locale: t.string,
  },
  "Customer",
);
export type Customer = t.TypeOf<typeof Customer>;

export const CUSTOMER_FIELDS = Object.keys(Customer.type.props) as readonly (keyof Customer)[];
