import * as t from "io-ts";
import { Customer } from "@sdwan-connections/core/wire";
import { aliasParameter, commonErrors, noSuchConnection, conditional, problem, verbMissing } from "./shared.js";

/** Part of openApiDocument (../openapi.ts): GET /partner/{alias}/customers and the Customer schema (routes/customers.ts). */

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
          content: { "application/json": { schema: t.array(Customer) } },
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
