import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import type { Server } from "node:http";
import { Container, type ContainerModule } from "inversify";
import type { DestinationStream } from "pino";
import type { Clock } from "@sdwan-connections/core";
import { ensureAdmin } from "./auth/users.js";
import type { Config } from "./config.js";
import { authModule, loadUsersOrFail } from "./di/modules/auth.js";
import { coreModule } from "./di/modules/core.js";
import { httpModule } from "./di/modules/http.js";
import { observabilityModule } from "./di/modules/observability.js";
import { orchestratorModuleFor, storageModuleFor } from "./di/modules/adapters.js";
import { StartupError } from "./di/modules/startup-error.js";
import { TOKENS } from "./di/tokens.js";

export interface ServiceOptions {
  /** Replaces the storage adapter chosen by `SDWAN_STORAGE` (tests: in-memory). */
  readonly storage?: ContainerModule;
  /** Replaces the orchestrator-portal client (tests: core's in-memory fake). */
  readonly orchestrator?: ContainerModule;
  /** Where the JSON logs go (default stdout). */
  readonly logDestination?: DestinationStream;
  readonly clock?: Clock;
  /** Where the one-time generated admin password is printed (default stdout). */
  readonly announce?: (text: string) => void;
  /** False serves without credentials (benchmarks only). */
  readonly authenticate?: boolean;
  /** How long shutdown waits for in-flight requests before closing their connections. */
  readonly drainTimeoutMs?: number;
}

export interface RunningService {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  readonly container: Container;
  /** Stops accepting, drains in-flight requests, closes the store. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * What every driver needs, from the configuration (one module per adapter):
 * configuration, logs and metrics, the store, the orchestrator client and the
 * use cases. The HTTP service adds authentication and the app; the CLI uses it as is.
 */
export const composeCore = async (
  config: Config,
  options: Pick<ServiceOptions, "storage" | "orchestrator" | "logDestination" | "clock"> = {},
): Promise<Container> => {
  const container = new Container({ defaultScope: "Singleton" });
  await container.loadAsync(
    observabilityModule(config, {
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.logDestination === undefined ? {} : { logDestination: options.logDestination }),
    }),
    options.storage ?? (await storageModuleFor(config)),
    options.orchestrator ?? (await orchestratorModuleFor(config)),
    coreModule(),
  );
  return container;
};

/**
 * The composition: builds the container from the configuration, creates the
 * generated admin if no user exists, and listens.
 */
export const startService = async (config: Config, options: ServiceOptions = {}): Promise<RunningService> => {
  const generated = await ensureAdmin(config);
  if (generated !== undefined) {
    (options.announce ?? ((text) => process.stdout.write(text)))(
      [
        "",
        "No users were configured, so an admin was created (only its bcrypt hash is stored).",
        `  user:     ${generated.user}`,
        `  password: ${generated.password}`,
        `  stored in ${resolve(generated.file)}; this password is shown only now.`,
        "",
        "",
      ].join("\n"),
    );
  }
  const users = await loadUsersOrFail(config);

  const container = await composeCore(config, options);
  await container.loadAsync(authModule(config, users), httpModule(options.authenticate === false ? { authenticate: false } : {}));
  const storage = await container.getAsync(TOKENS.Storage);
  const logger = container.get(TOKENS.Logger);
  const lifecycle = container.get(TOKENS.Lifecycle);
  const app = container.get(TOKENS.App);

  const server: Server = app.listen(config.port, config.host);
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  try {
    await Promise.race([once(server, "listening"), once(server, "error").then(([error]) => Promise.reject(error as Error))]);
  } catch (error) {
    // Port taken or address not available: release the store (and its lock) before giving up.
    await storage.close().catch(() => undefined);
    await container.unbindAllAsync().catch(() => undefined);
    throw new StartupError(`SDWAN_HOST/SDWAN_PORT: cannot listen on ${config.host}:${config.port} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
  logger.info({ url, storage: config.storage, dataDir: resolve(config.dataDir) }, "listening");

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      lifecycle.draining = true;
      logger.info("shutting down: draining in-flight requests");
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), options.drainTimeoutMs ?? 10_000);
      await drained;
      clearTimeout(timer);
      container.get(TOKENS.Auth).close();
      container.get(TOKENS.ConnectionService).dispose();
      await storage.close();
      // Runs the modules' deactivations: the orchestrator client frees its keep-alive sockets.
      await container.unbindAllAsync();
      logger.info("stopped");
      // Buffered log lines would be lost to the process.exit that usually follows.
      await new Promise<void>((resolve) => logger.flush(() => resolve()));
    })());

  return { url, container, close };
};
