import * as E from "fp-ts/lib/Either.js";
import { CUSTOMER_FIELDS, Customer } from "@sdwan-connections/core";
import { describe, expect, it } from "vitest";
import { decodeCustomers, Enterprise, round6, toCustomer } from "./wire.js";

const enterprise = (overrides: Record<string, unknown> = {}) => ({
  id: 342,
  logicalId: "78a92010-9085-4d9c-9537-92eab2522697",
  networkId: 1,
  gatewayPoolId: 2,
  bastionState: "UNCONFIGURED",
  alertsEnabled: 1,
  operatorAlertsEnabled: 0,
  name: "RALEIGH_LAB",
  domain: "rdulab",
  accountNumber: "RDU-foo",
  description: null,
  streetAddress: "PO Box 362",
  city: "Apex",
  state: "North Carolina",
  postalCode: "27502",
  country: "US",
  lat: 35.770000123,
  lon: -78.6400004,
  timezone: "America/New_York",
  locale: "en-US",
  created: "2020-01-01 00:00:00",
  contactEmail: "noc@example.com",
  ...overrides,
});

describe("decodeCustomers", () => {
  it("maps an enterprise to exactly Customer's 20 keys in order", () => {
    const customers = decodeCustomers([enterprise()]);
    if (E.isLeft(customers)) throw new Error(customers.left);
    const [customer] = customers.right;
    expect(Object.keys(customer ?? {})).toEqual(CUSTOMER_FIELDS);
    expect(Customer.is(customer)).toBe(true);
    expect(customer).toEqual({
      enterpriseId: "78a92010-9085-4d9c-9537-92eab2522697",
      id: 342,
      networkId: 1,
      gatewayPoolId: 2,
      bastionState: "UNCONFIGURED",
      alertsEnabled: true,
      operatorAlertsEnabled: false,
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
    });
  });

  it("turns missing or null strings into '' and missing or null numbers and flags into null", () => {
    const customers = decodeCustomers([{ id: 1, logicalId: "x", networkId: null, alertsEnabled: null, name: null }]);
    expect(E.isRight(customers) && customers.right[0]).toMatchObject({
      networkId: null,
      gatewayPoolId: null,
      alertsEnabled: null,
      operatorAlertsEnabled: null,
      name: "",
      address: "",
      latitude: null,
      longitude: null,
    });
  });

  it.each([
    ["no id", { id: undefined }, "id"],
    ["no logicalId", { logicalId: undefined }, "logicalId"],
    ["a fractional id", { id: 1.5 }, "id"],
    ["a string latitude", { lat: "35.7" }, "lat"],
    ["a tinyint of 2", { alertsEnabled: 2 }, "alertsEnabled"],
    ["a numeric name", { name: 42 }, "name"],
  ])("makes the whole answer garbage for %s, naming the field but not the value", (_, overrides, field) => {
    const customers = decodeCustomers([enterprise(), enterprise(overrides)]);
    expect(E.isLeft(customers) && customers.left).toBe(`enterprise [1] has a missing or invalid ${field}`);
  });

  it("refuses an answer that is not an array", () => {
    expect(E.isLeft(decodeCustomers({ error: 1 }))).toBe(true);
  });
});

describe("decodeCustomers' fast path agrees with io-ts", () => {
  /** Every kind of JSON value, and near misses of each field's type. */
  const VALUES: readonly unknown[] = [
    undefined,
    null,
    "",
    "x",
    "1",
    0,
    1,
    2,
    -1,
    -0,
    1.5,
    35.770000123,
    1e21,
    true,
    false,
    {},
    [],
    [1],
    { id: 1 },
  ];
  /** The answer as decoded before the fast path: io-ts for every enterprise, the same reason form. */
  const ioTs = (items: readonly unknown[]) => {
    const customers = [];
    for (const [index, item] of items.entries()) {
      const decoded = Enterprise.decode(item);
      if (E.isLeft(decoded))
        return E.left(`enterprise [${index}] has a missing or invalid ${describeFields(decoded.left)}`);
      customers.push(toCustomer(decoded.right));
    }
    return E.right(customers);
  };
  const FIELDS = new Set(Object.keys(Enterprise.props));
  const describeFields = (errors: readonly { context: readonly { key: string }[] }[]) =>
    [
      ...new Set(
        errors.map(
          (error) =>
            error.context
              .map((entry) => entry.key)
              .filter((key) => FIELDS.has(key))
              .at(-1) ?? "(shape)",
        ),
      ),
    ]
      .slice(0, 5)
      .join(", ");

  it.each(Object.keys(Enterprise.props))(
    "%s: every value is accepted, mapped or refused (with io-ts's reason) as io-ts does",
    (field) => {
      for (const value of VALUES) {
        const item = enterprise({ [field]: value });
        if (value === undefined) delete (item as Record<string, unknown>)[field];
        expect(decodeCustomers([enterprise(), item]), `${field}: ${JSON.stringify(value)}`).toEqual(
          ioTs([enterprise(), item]),
        );
      }
    },
  );

  it("refuses what is not a record as io-ts does", () => {
    for (const item of [null, "x", 1, true, [], [enterprise()]]) expect(decodeCustomers([item])).toEqual(ioTs([item]));
  });

  it("names every bad field, as io-ts does, when several are bad", () => {
    const item = enterprise({ id: "1", lat: "35.7", alertsEnabled: 2 });
    expect(decodeCustomers([item])).toEqual(ioTs([item]));
    expect(decodeCustomers([item])).toEqual(E.left("enterprise [0] has a missing or invalid id, alertsEnabled, lat"));
  });
});

describe("round6", () => {
  it.each([
    [35.7700001, 35.77],
    [-78.6400005, -78.640001],
    [1.0000005, 1.000001],
    [-0.0000004, 0],
    [12.3456789, 12.345679],
    [null, null],
  ])("%s → %s", (input, expected) => {
    expect(round6(input)).toBe(expected);
  });
});
