import { systemClock, type Clock } from "@sdwan-connections/core";
import { ContainerModule } from "inversify";
import type { DestinationStream } from "pino";
import type { Config } from "../config.js";
import { createLogger } from "../logger.js";
import { createMetrics } from "../metrics.js";
import { TOKENS } from "../tokens.js";

export interface ObservabilityOptions {
  /** Where the JSON logs go (default stdout). */
  readonly logDestination?: DestinationStream;
  readonly clock?: Clock;
  /** The process's own metrics (heap, GC, event loop; default on): a command-line run that nobody scrapes skips them. */
  readonly defaultMetrics?: boolean;
}

/** Configuration, logger, metrics and clock. Unbinding flushes the logs a process.exit would otherwise lose. */
export const observabilityModule = (config: Config, options: ObservabilityOptions = {}) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Config).toConstantValue(config);
    bind(TOKENS.Logger)
      .toConstantValue(createLogger(config.logLevel, options.logDestination))
      .onDeactivation((logger) => new Promise<void>((resolve) => logger.flush(() => resolve())));
    bind(TOKENS.Metrics).toConstantValue(createMetrics({ defaultMetrics: options.defaultMetrics !== false }));
    bind(TOKENS.Clock).toConstantValue(options.clock ?? systemClock);
  });
