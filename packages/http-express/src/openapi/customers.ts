import { CUSTOMER_FIELDS, Customer } from "@sdwan-connections/core";
import { aliasParameter, commonErrors, noSuchConnection, conditional, problem, verbMissing } from "./shared.js";

/** Part of openApiDocument (../openapi.ts): GET /partner/{alias}/customers and the Customer schema (routes/customers.ts). */

/** Each Customer field's JSON Schema type, read off core's codec by what it accepts. */
const customerProperties = Object.fromEntries(
  Object.entries(Customer.type.props).map(([field, codec]) => {
    const probes: readonly (readonly [string, unknown])[] = [
      ["string", ""],
      ["integer", 1],
      ["number", 0.5],
      ["boolean", true],
      ["null", null],
    ];
    const types = probes.filter(([, value]) => codec.is(value)).map(([type]) => type);
    // A codec that takes 0.5 takes every number: "integer" is then implied.
    const schemaTypes = types.includes("number") ? types.filter((type) => type !== "integer") : types;
    return [field, { type: schemaTypes.length === 1 ? schemaTypes[0] : schemaTypes }];
  }),
);

export const customersPaths = {
  "/partner/{alias}/customers": {
    parameters: [aliasParameter],
    get: {
      operationId: "listPartnerCustomers",
      summary: "List the customers behind a partner connection (cached per connection, 60 s by default).",
      parameters: conditional.parameters,
      responses: {
        "200": {
          description: "One element per customer.",
          headers: conditional.headers,
          content: {
            "application/json": { schema: { type: "array", items: { $ref: "#/components/schemas/Customer" } } },
          },
        },
        "304": conditional.notModified,
        ...commonErrors,
        "403": verbMissing,
        "404": noSuchConnection,
        "409": problem("The connection is not a partner connection."),
        "502": problem(
          "The orchestrator refused the key (orchestrator-rejected), failed (orchestrator-failed: a 5xx with its error body that persisted through the retries), answered garbage (a list over SDWAN_CUSTOMERS_MAX_ENTERPRISES or SDWAN_CUSTOMERS_MAX_REPLY_BYTES included), rate-limited us or cannot be reached.",
        ),
        "504": problem("The orchestrator did not answer in time."),
      },
    },
  },
} as const;

export const customersSchemas = {
  Customer: {
    type: "object",
    additionalProperties: false,
    required: [...CUSTOMER_FIELDS],
    properties: customerProperties,
  },
} as const;
