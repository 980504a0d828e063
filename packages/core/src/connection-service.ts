import { createCustomersCache, type CacheOutcome } from "./customers-cache.js";
import { createInProcessConnectionChanges, type ConnectionChanges } from "./ports/connection-changes.js";
import { systemClock, type Clock } from "./ports/clock.js";
import type { ConnectionRepository } from "./ports/connection-repository.js";
import { createProcessKeyFingerprints, type KeyFingerprints } from "./ports/key-fingerprints.js";
import type { Orchestrator } from "./ports/orchestrator.js";
import { addConnection } from "./use-cases/add-connection.js";
import { checkApiKey } from "./use-cases/check-api-key.js";
import { deleteConnection } from "./use-cases/delete-connection.js";
import { listConnections } from "./use-cases/list-connections.js";
import { listPartnerCustomers } from "./use-cases/list-partner-customers.js";
import { rotateMasterKey } from "./use-cases/rotate-master-key.js";
import { updateConnection } from "./use-cases/update-connection.js";
import { validateConnection } from "./use-cases/validate-connection.js";

export const DEFAULT_CUSTOMERS_CACHE_TTL_MS = 60_000;

export interface ConnectionServiceOptions {
  readonly repository: ConnectionRepository;
  readonly orchestrator: Orchestrator;
  /** Where updates and deletes are announced; defaults to this process only. */
  readonly changes?: ConnectionChanges;
  readonly clock?: Clock;
  /** Keyed apiKey fingerprints; defaults to a secret of this process (a service wires the master key's, shared by its instances). */
  readonly fingerprints?: KeyFingerprints;
  /** Customers cache TTL; 0 disables caching. Defaults to 60 s. */
  readonly customersCacheTtlMs?: number;
  /** Observes each customers cache lookup (for metrics). */
  readonly onCustomersCacheLookup?: (outcome: CacheOutcome) => void;
}

/**
 * Every use case wired to one set of ports, for drivers that need no DI
 * container: an embedding service calls this and gets the same behaviour,
 * customers cache included, as the REST service.
 */
export const createConnectionService = (options: ConnectionServiceOptions) => {
  const { repository, orchestrator } = options;
  const changes = options.changes ?? createInProcessConnectionChanges();
  const fingerprints = options.fingerprints ?? createProcessKeyFingerprints();
  const customersCache = createCustomersCache({
    ttlMs: options.customersCacheTtlMs ?? DEFAULT_CUSTOMERS_CACHE_TTL_MS,
    clock: options.clock ?? systemClock,
    ...(options.onCustomersCacheLookup === undefined ? {} : { onLookup: options.onCustomersCacheLookup }),
  });
  const unsubscribe = changes.subscribe(customersCache.drop);

  return {
    listConnections: listConnections({ repository }),
    addConnection: addConnection({ repository, orchestrator }),
    updateConnection: updateConnection({ repository, orchestrator, changes }),
    validateConnection: validateConnection({ repository, orchestrator, fingerprints }),
    checkApiKey: checkApiKey({ repository, fingerprints }),
    deleteConnection: deleteConnection({ repository, changes }),
    listPartnerCustomers: listPartnerCustomers({ repository, orchestrator, customersCache }),
    rotateMasterKey: rotateMasterKey({ repository }),
    /** Stops listening for changes; the ports themselves belong to the caller. */
    dispose: unsubscribe,
  };
};

export type ConnectionService = ReturnType<typeof createConnectionService>;
