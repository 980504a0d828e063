import { systemClock } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { Container, ContainerModule } from "inversify";
import type { Config } from "./config.js";
import { createLogger } from "./logger.js";
import { openService, type OpenedService, type ServiceOverrides } from "./open-service.js";
import { startupFailure } from "./startup-error.js";
import { IDS } from "./di-identifiers.js";

export interface ComposeOptions extends Omit<ServiceOverrides, "logger" | "metrics" | "tracing"> {
  /** A driver's own modules, loaded after the opened values are bound (they may use the composition's tokens). */
  readonly modules?: readonly ContainerModule[];
}

/** A started composition: the service opened, its values bound in the container with the driver's modules. */
export interface Composition extends OpenedService {
  readonly container: Container;
}

/**
 * `openService` plus a container for a driver's classes and lifecycles (the REST service's): one module binds
 * what was opened (configuration, pino logger, Prometheus metrics, clock, store, orchestrator, service), then
 * the driver's modules load. `close()` unbinds the container (the driver's deactivations), closes what
 * `openService` opened, and flushes the logs. A failure answers one line, with whatever was opened closed.
 */
export const compose =
  (config: Config, options: ComposeOptions = {}): TaskEither<string, Composition> =>
  async () => {
    const logger = createLogger(config.logLevel, options.logDestination);
    const flushLogs = () => new Promise<void>((resolve) => logger.flush(() => resolve()));
    // Its module (and prom-client) loaded here only: the CLI, which opens the service without a container, never loads it.
    const metrics = (await import("./metrics.js")).createMetrics();
    const clock = options.clock ?? systemClock;
    // Off unless OTEL_* turn it on: then its module and the OpenTelemetry SDK load; closed after the service, so the
    // spans of the closing are sent.
    const tracing =
      config.tracing === undefined ? undefined : (await import("./tracing.js")).openTracing(config.tracing, { logger });
    const opened = await openService(config, { ...options, logger, metrics, clock, ...(tracing && { tracing }) })();
    if (E.isLeft(opened))
      return await Promise.all([tracing?.shutdown(), flushLogs()]).then(() => E.left(opened.left.message));
    const { storage, orchestrator, service, fetch } = opened.right;
    const container = new Container({ defaultScope: "Singleton" });
    const close = async () => {
      await container.unbindAllAsync();
      await opened.right.close();
      await tracing?.shutdown();
      await flushLogs();
    };
    try {
      await container.loadAsync(
        new ContainerModule(({ bind }) => {
          bind(IDS.Config).toConstantValue(config);
          bind(IDS.Logger).toConstantValue(logger);
          bind(IDS.Metrics).toConstantValue(metrics);
          bind(IDS.Clock).toConstantValue(clock);
          bind(IDS.Storage).toConstantValue(storage);
          bind(IDS.Orchestrator).toConstantValue(orchestrator);
          bind(IDS.Core).toConstantValue(service);
          bind(IDS.OutboundFetch).toConstantValue(fetch);
          if (tracing !== undefined) bind(IDS.Tracing).toConstantValue(tracing);
        }),
        ...(options.modules ?? []),
      );
      return E.right({ ...opened.right, container, close });
    } catch (error) {
      await close().catch(() => undefined);
      return E.left(startupFailure(error));
    }
  };
