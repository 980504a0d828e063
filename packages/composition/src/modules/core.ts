import { createConnectionService, describeError } from "@sdwan-connections/core";
import { ContainerModule } from "inversify";
import { TOKENS } from "../tokens.js";

/**
 * The use cases over whichever storage and orchestrator modules were loaded; orchestrator calls are
 * measured. Background health checks are configured here (SDWAN_HEALTH_INTERVAL_S) and started by the
 * service that runs them (the REST service; never a CLI command): their changes are logged, their counts
 * per state kept for /metrics when metrics are bound.
 */
export const coreModule = () =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.ConnectionService)
      .toDynamicValue(async (context) => {
        const config = context.get(TOKENS.Config);
        const metrics = await context.getAsync(TOKENS.Metrics, { optional: true });
        const storage = await context.getAsync(TOKENS.Storage);
        const logger = context.get(TOKENS.Logger);
        const orchestrator = await context.getAsync(TOKENS.Orchestrator);
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
          clock: context.get(TOKENS.Clock),
          customersCacheTtlMs: config.customersCacheTtlMs,
          ...(metrics === undefined ? {} : { onCustomersCacheLookup: metrics.onCustomersCacheLookup }),
        });
        return service;
      })
      .inSingletonScope()
      .onDeactivation((service) => service.dispose());
  });
