import { systemClock, type Clock } from "@sdwan-connections/core";
import { ContainerModule } from "inversify";
import type { DestinationStream } from "pino";
import type { Config } from "../config.js";
import { createLogger } from "../logger.js";
import { TOKENS } from "../tokens.js";

export interface ObservabilityOptions {
  /** Where the JSON logs go (default stdout). */
  readonly logDestination?: DestinationStream;
  readonly clock?: Clock;
  /**
   * Prometheus metrics (default on). Off for a command-line run that nobody scrapes: prom-client is then
   * never even loaded (it weighs on every start of the CLI), and orchestrator calls are not measured.
   */
  readonly metrics?: boolean;
}

/**
 * Configuration, logger, metrics and clock. Unbinding flushes the logs a process.exit would otherwise lose.
 * Metrics are bound asynchronously: their module (and prom-client) is imported when first asked for.
 */
export const observabilityModule = (config: Config, options: ObservabilityOptions = {}) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Config).toConstantValue(config);
    bind(TOKENS.Logger)
      .toConstantValue(createLogger(config.logLevel, options.logDestination))
      .onDeactivation((logger) => new Promise<void>((resolve) => logger.flush(() => resolve())));
    if (options.metrics !== false) bind(TOKENS.Metrics).toDynamicValue(async () => (await import("../metrics.js")).createMetrics());
    bind(TOKENS.Clock).toConstantValue(options.clock ?? systemClock);
  });
