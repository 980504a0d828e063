import { TOKENS, type Config, type Logger, type Metrics } from "@sdwan-connections/composition";
import { CONSOLE_DIRECTORY } from "@sdwan-connections/console";
import type { ConnectionService, Storage } from "@sdwan-connections/core";
import type { Express } from "express";
import { ContainerModule, inject, injectable, optional } from "inversify";
import { createApp } from "./app.js";
import { HTTP_TOKENS, type Auth, type Lifecycle } from "./tokens.js";

/**
 * The express app over the connection service, built by the container from
 * its constructor's dependencies. Each parameter names its token: vitest's
 * esbuild emits no decorator metadata, so tests and the tsc build resolve the
 * same way. Without HTTP_TOKENS.Auth bound it serves without credentials
 * (benchmarks only).
 */
@injectable()
export class RestApp {
  readonly express: Express;

  constructor(
    @inject(TOKENS.ConnectionService) service: ConnectionService,
    @inject(TOKENS.Logger) logger: Logger,
    @inject(TOKENS.Metrics) metrics: Metrics,
    @inject(TOKENS.Config) config: Config,
    @inject(TOKENS.Storage) storage: Storage,
    @inject(HTTP_TOKENS.Lifecycle) lifecycle: Lifecycle,
    @inject(HTTP_TOKENS.Auth) @optional() auth: Auth | undefined,
  ) {
    this.express = createApp({
      service,
      logger,
      metrics,
      auth,
      ready: async () => (await storage.repository.ping()())._tag === "Right",
      draining: () => lifecycle.draining,
      healthIntervalMs: config.healthIntervalMs,
      consoleDirectory: config.console ? CONSOLE_DIRECTORY : undefined,
      trustedProxies: config.trustedProxies,
    });
  }
}

export const httpModule = () =>
  new ContainerModule(({ bind }) => {
    bind(HTTP_TOKENS.Lifecycle).toConstantValue({ draining: false });
    bind(HTTP_TOKENS.App).to(RestApp).inSingletonScope();
  });
