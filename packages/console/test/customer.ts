import type { Customer } from "@sdwan-connections/core/wire";

/** A customer with every field empty but its ids and name, and `fields`. */
export const customer = (id: number, fields: Partial<Customer> = {}): Customer => ({
  enterpriseId: `e${id}`,
  id,
  networkId: null,
  gatewayPoolId: null,
  bastionState: "UNCONFIGURED",
  alertsEnabled: null,
  operatorAlertsEnabled: null,
  name: `Customer ${id}`,
  domain: "",
  accountNumber: "",
  description: "",
  address: "",
  city: "",
  state: "",
  zip: "",
  country: "",
  latitude: null,
  longitude: null,
  timezone: "",
  locale: "",
  ...fields,
});
