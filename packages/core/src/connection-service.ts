import { createCustomersCache, type CacheOutcome } from "./customers-cache.js";
import { createAuditTrail } from "./audit-trail.js";
import { createHealthMonitor, type HealthChange } from "./health-monitor.js";
import { createInMemoryHealthLedger } from "./memory-health-ledger.js";
import type { HealthLedger } from "./ports/health-ledger.js";
import { listConnectionsHealth } from "./use-cases/list-connections-health.js";
import type { Actor } from "./domain/audit.js";
import { createInMemoryAuditLog } from "./memory-audit-log.js";
import type { AuditLog } from "./ports/audit-log.js";
import { createInProcessConnectionChanges, type ConnectionChanges } from "./ports/connection-changes.js";
import { systemClock, type Clock } from "./ports/clock.js";
import type { DomainError } from "./domain/errors.js";
import type { ConnectionRepository } from "./ports/connection-repository.js";
import { createProcessKeyFingerprints, type KeyFingerprints } from "./ports/key-fingerprints.js";
import type { Orchestrator } from "./ports/orchestrator.js";
import { addConnection, type AddConnectionOptions } from "./use-cases/add-connection.js";
import { checkApiKey } from "./use-cases/check-api-key.js";
import { applyPlan, planConfiguration, type ApplyOptions, type Plan } from "./use-cases/configuration.js";
import { deleteConnection, type DeleteConnectionOptions } from "./use-cases/delete-connection.js";
import { describeConnection } from "./use-cases/describe-connection.js";
import { listConnections } from "./use-cases/list-connections.js";
import { listPartnerCustomers } from "./use-cases/list-partner-customers.js";
import { rotateMasterKey } from "./use-cases/rotate-master-key.js";
import { updateConnection, type UpdateConnectionOptions } from "./use-cases/update-connection.js";
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
  /** Where every write is audited; defaults to this process's memory (a service wires its store's). */
  readonly audit?: AuditLog;
  /** Told when an audit entry could not be recorded (the write itself stands). */
  readonly onAuditFailure?: (error: DomainError) => void;
  /**
   * Background health: where the states live (this process's memory unless given) and, to check
   * periodically, the interval; `onChange` hears each state change (audited as well).
   */
  readonly health?: {
    readonly ledger?: HealthLedger;
    readonly intervalMs?: number;
    readonly onChange?: (change: HealthChange) => void;
    readonly onRound?: () => void;
    readonly onError?: (error: DomainError) => void;
  };
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
  const audit = options.audit ?? createInMemoryAuditLog();
  const trail = createAuditTrail({ audit, ...(options.onAuditFailure === undefined ? {} : { onFailure: options.onAuditFailure }) });
  const health = options.health ?? {};
  const ledger = health.ledger ?? createInMemoryHealthLedger();
  const monitor =
    health.intervalMs === undefined
      ? undefined
      : createHealthMonitor({
          repository,
          orchestrator,
          ledger,
          intervalMs: health.intervalMs,
          onChange: (change) => {
            trail.healthChanged(change);
            health.onChange?.(change);
          },
          ...(health.onRound === undefined ? {} : { onRound: health.onRound }),
          ...(health.onError === undefined ? {} : { onError: health.onError }),
        });
  const add = addConnection({ repository, orchestrator });
  const update = updateConnection({ repository, orchestrator, changes });
  const remove = deleteConnection({ repository, changes });
  const rotate = rotateMasterKey({ repository });
  type By = { readonly by?: Actor };
  const addConnectionAudited = (body: unknown, options: AddConnectionOptions & By = {}) => trail.audited(options.by, trail.ofAdd(body, options), add(body, options));
  const updateConnectionAudited = (rawAlias: string, body: unknown, options: UpdateConnectionOptions & By = {}) =>
    trail.audited(options.by, trail.ofUpdate(rawAlias, body, options), update(rawAlias, body, options));
  const deleteConnectionAudited = (rawAlias: string, options: DeleteConnectionOptions & By = {}) =>
    trail.audited(options.by, trail.ofDelete(rawAlias), remove(rawAlias, options));

  return {
    listConnections: listConnections({ repository }),
    /** Every write below is audited as done by `by` (anonymous when not given), failed ones included. */
    addConnection: addConnectionAudited,
    updateConnection: updateConnectionAudited,
    validateConnection: validateConnection({ repository, orchestrator, fingerprints }),
    /** One connection as stored (version, key date, key fingerprint), without asking the orchestrator. */
    describeConnection: describeConnection({ repository, fingerprints }),
    checkApiKey: checkApiKey({ repository, fingerprints }),
    deleteConnection: deleteConnectionAudited,
    listPartnerCustomers: listPartnerCustomers({ repository, orchestrator, customersCache }),
    rotateMasterKey: (options: By = {}) => trail.audited(options.by, trail.ofRotation(), rotate()),
    /** What applying a configuration (connections with their keys) would change; see `planConfiguration`. */
    planConfiguration: planConfiguration({ repository, fingerprints }),
    /** Carries out a plan through the audited writes below, as `by`; a failed step does not stop the rest. */
    applyPlan: (plan: Plan, options: ApplyOptions & By = {}) => {
      const by = options.by === undefined ? {} : { by: options.by };
      return applyPlan({
        add: (body, force) => addConnectionAudited(body, { force, ...by }),
        update: (alias, change, force) => updateConnectionAudited(alias, change, { force, ...by }),
        remove: (alias) => deleteConnectionAudited(alias, by),
      })(plan, options);
    },
    /** Every connection's background health (`unknown` until checked). */
    connectionsHealth: listConnectionsHealth({ repository, ledger }),
    /** The periodic checks, when an interval was given: started by whoever runs the service. */
    healthMonitor: monitor,
    /** A page of the audit trail, newest first, from a query given as text (`alias`, `since`, `limit`, `before`). */
    listAudit: trail.list,
    /** Stops listening for changes and waits for the audit entries still being recorded; the ports themselves belong to the caller. */
    dispose: async (): Promise<void> => {
      unsubscribe();
      await monitor?.stop();
      await trail.settled();
    },
  };
};

export type ConnectionService = ReturnType<typeof createConnectionService>;
