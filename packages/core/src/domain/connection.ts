import type { ApiKey } from "./api-key.js";
import type { Alias, OrchestratorUrl } from "./codecs.js";

/** A named connection to one orchestrator, with the credential used there. */
export interface Connection {
  readonly alias: Alias;
  readonly orchestratorUrl: OrchestratorUrl;
  readonly apiKey: ApiKey;
}

/** What listing shows of a connection: never the key. */
export interface ConnectionSummary {
  readonly alias: Alias;
  readonly orchestratorUrl: OrchestratorUrl;
}

/** A change to a stored connection; an absent field keeps its stored value. */
export interface ConnectionChange {
  readonly orchestratorUrl?: OrchestratorUrl;
  readonly apiKey?: ApiKey;
}

/** Where a connection points and with what key: all the orchestrator port needs. */
export type OrchestratorTarget = Pick<Connection, "orchestratorUrl" | "apiKey">;

/** Whose key it is: a partner's (who has customers) or a single customer's. */
export type ConnectionKind = "partner" | "customer";

/** How the orchestrator identified a key it accepted. */
export type Identity =
  | { readonly kind: "partner"; readonly partnerId: number }
  | { readonly kind: "customer"; readonly customerId: number };

