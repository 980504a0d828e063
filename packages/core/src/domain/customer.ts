import * as t from "io-ts";
import { IntegerCodec } from "./codecs.js";

const nullableInteger = t.union([IntegerCodec, t.null]);
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
    id: IntegerCodec,
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
