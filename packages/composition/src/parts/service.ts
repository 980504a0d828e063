import { createConnectionService, describeError, type Clock, type ConnectionService, type Orchestrator, type Storage } from "@sdwan-connections/core";
import type { Config } from "../config.js";
import type { LogSink } from "../log-sink.js";
import type { Metrics } from "../metrics.js";

export interface ServiceParts {
  readonly config: Config;
  readonly storage: Storage;
  readonly orchestrator: Orchestrator;
  readonly logger: LogSink;
  /** When bound: orchestrator calls measured, health counts and customers cache lookups counted. */
  readonly metrics?: Metrics | undefined;
  readonly clock: Clock;
}

/**
 * The use cases over a storage and an orchestrator. Background health checks are configured here
 * (SDWAN_HEALTH_INTERVAL_S) and started by the service that runs them (the REST service; never a CLI
 * command): their changes are logged, their counts per state kept for /metrics when metrics are given.
 */
export const serviceFor = ({ config, storage, orchestrator, logger, metrics, clock }: ServiceParts): ConnectionService => {
  // After each round of checks: the counts per state for /metrics.
  const refreshHealthCounts = async () => {
    const health = await service.connectionsHealth()();
    if (health._tag === "Right") metrics?.setHealthCounts(health.right.map((entry) => entry.state));
  };
  const service = createConnectionService({
    repository: storage.repository,
    changes: storage.changes,
    fingerprints: storage.fingerprints,
    audit: storage.audit,
    onAuditFailure: (error) => logger.error({ problem: describeError(error) }, "audit entry not recorded"),
    health: {
      ledger: storage.health,
      ...(config.healthIntervalMs === undefined ? {} : { intervalMs: config.healthIntervalMs }),
      onChange: ({ alias, from, to, check }) => logger.info({ alias, from, to, reason: check.reason }, "connection health changed"),
      onRound: () => void refreshHealthCounts(),
      onError: (error) => logger.warn({ problem: describeError(error) }, "connection health not read or written"),
    },
    orchestrator: metrics?.instrumentOrchestrator(orchestrator) ?? orchestrator,
    clock,
    customersCacheTtlMs: config.customersCacheTtlMs,
    ...(metrics === undefined ? {} : { onCustomersCacheLookup: metrics.onCustomersCacheLookup }),
  });
  return service;
};
