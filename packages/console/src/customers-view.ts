import type { Customer } from "@sdwan-connections/core/wire";

export type CustomerField = keyof Customer;

export interface Sort {
  readonly field: CustomerField;
  readonly direction: "ascending" | "descending";
}

/** Each field's name for people, in the order a customer's panel shows them. */
export const CUSTOMER_LABELS: Readonly<Record<CustomerField, string>> = {
  name: "Name",
  id: "ID",
  enterpriseId: "Enterprise ID",
  accountNumber: "Account number",
  domain: "Domain",
  description: "Description",
  address: "Address",
  city: "City",
  state: "State",
  zip: "Postal code",
  country: "Country",
  latitude: "Latitude",
  longitude: "Longitude",
  timezone: "Time zone",
  locale: "Locale",
  bastionState: "Bastion state",
  alertsEnabled: "Alerts",
  operatorAlertsEnabled: "Operator alerts",
  networkId: "Network ID",
  gatewayPoolId: "Gateway pool ID",
};

/** A field's value for people: "yes"/"no" for a flag, "—" for none. */
export const customerValue = (value: Customer[CustomerField]): string =>
  value === null || value === "" ? "—" : typeof value === "boolean" ? (value ? "yes" : "no") : String(value);

/** The fields the filter looks in. */
const SEARCHED: readonly CustomerField[] = [
  "name",
  "enterpriseId",
  "id",
  "accountNumber",
  "domain",
  "city",
  "state",
  "country",
  "bastionState",
];

/** A customer with the lower-case text the filter searches, computed once per list rather than once per keystroke. */
export interface IndexedCustomer {
  readonly customer: Customer;
  readonly searchText: string;
}

export const indexCustomers = (customers: readonly Customer[]): readonly IndexedCustomer[] =>
  customers.map((customer) => ({
    customer,
    searchText: SEARCHED.map((field) => String(customer[field] ?? ""))
      .join("\u0000")
      .toLowerCase(),
  }));

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

const isEmpty = (value: Customer[CustomerField]): boolean => value === null || value === "";

/** Numbers by value, text in the reader's collation (digits as numbers). */
const compareValues = (a: Customer[CustomerField], b: Customer[CustomerField]): number =>
  typeof a === "number" && typeof b === "number" ? a - b : collator.compare(String(a), String(b));

/** The customers that contain every word of `filter` (any field searched, any case), in their order. */
export const filterCustomers = (customers: readonly IndexedCustomer[], filter: string): readonly Customer[] => {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const kept =
    words.length === 0
      ? customers
      : customers.filter(({ searchText }) => words.every((word) => searchText.includes(word)));
  return kept.map(({ customer }) => customer);
};

/** A sorted copy of `customers` (the same list without a sort). */
export const sortCustomers = (customers: readonly Customer[], sort: Sort | undefined): readonly Customer[] => {
  if (sort === undefined) return customers;
  const sign = sort.direction === "ascending" ? 1 : -1;
  return [...customers].sort((a, b) => {
    const [x, y] = [a[sort.field], b[sort.field]];
    // Empty values (null, "") last, whichever the direction.
    return isEmpty(x) || isEmpty(y) ? Number(isEmpty(x)) - Number(isEmpty(y)) : sign * compareValues(x, y);
  });
};

/** The next sort after activating a column's header: ascending, then descending, then back to ascending. */
export const nextSort = (current: Sort | undefined, field: CustomerField): Sort =>
  current?.field === field && current.direction === "ascending"
    ? { field, direction: "descending" }
    : { field, direction: "ascending" };
