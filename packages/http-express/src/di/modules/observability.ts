import { systemClock, type Clock } from "@sdwan-connections/core";
import { ContainerModule } from "inversify";
import type { DestinationStream } from "pino";
import type { Config } from "../../config.js";
import { createLogger } from "../../logger.js";
import { createMetrics } from "../../metrics.js";
import { TOKENS } from "../tokens.js";

/** Configuration, logger, metrics, clock and the shutdown flag. */
export const observabilityModule = (
  config: Config,
  options: { readonly logDestination?: DestinationStream; readonly clock?: Clock } = {},
) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Config).toConstantValue(config);
    bind(TOKENS.Logger).toConstantValue(createLogger(config.logLevel, options.logDestination));
    bind(TOKENS.Metrics).toConstantValue(createMetrics());
    bind(TOKENS.Clock).toConstantValue(options.clock ?? systemClock);
    bind(TOKENS.Lifecycle).toConstantValue({ draining: false });
  });
