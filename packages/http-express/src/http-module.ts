import { IDS, type Config, type Logger, type Metrics, type Tracing } from "@sdwan-connections/composition";
import { CONSOLE_DIRECTORY } from "@sdwan-connections/console";
import type { Core, Storage } from "@sdwan-connections/core";
import { ContainerModule } from "inversify";
import { createApp } from "./app.js";
import { HTTP_IDS, type Auth, type Lifecycle } from "./di-identifiers.js";

/**
 * The express app over the connection service, resolved from the values it needs (a value, not a class: it
 * has no state or lifecycle of its own). Without HTTP_IDS.Auth bound it serves without credentials
 * (benchmarks only).
 */
export const httpModule = () =>
  new ContainerModule(({ bind }) => {
    bind(HTTP_IDS.Lifecycle).toConstantValue({ draining: false, eventStreams: new Set() });
    bind(HTTP_IDS.App).toResolvedValue(
      (
        service: Core,
        logger: Logger,
        metrics: Metrics,
        config: Config,
        storage: Storage,
        lifecycle: Lifecycle,
        auth: Auth | undefined,
        tracing: Tracing | undefined,
      ) =>
        createApp({
          service,
          logger,
          metrics,
          auth,
          ready: async () => (await storage.repository.ping()())._tag === "Right",
          draining: () => lifecycle.draining,
          healthIntervalMs: config.healthIntervalMs,
          consoleDirectory: config.console ? CONSOLE_DIRECTORY : undefined,
          trustedProxies: config.trustedProxies,
          oidc: config.oidc,
          events: { streams: lifecycle.eventStreams, ...config.events },
          tracing,
        }),
      [
        IDS.Core,
        IDS.Logger,
        IDS.Metrics,
        IDS.Config,
        IDS.Storage,
        HTTP_IDS.Lifecycle,
        { serviceIdentifier: HTTP_IDS.Auth, optional: true },
        { serviceIdentifier: IDS.Tracing, optional: true },
      ],
    );
  });
