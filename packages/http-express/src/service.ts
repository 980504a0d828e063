// inversify reads the constructor metadata the decorated class (WatchedUsersAuth) emits: loaded once, here.
import "reflect-metadata";
import { once } from "node:events";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import {
  compose,
  startupFailure,
  IDS,
  type ComposeOptions,
  type Composition,
  type Config,
} from "@sdwan-connections/composition";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { authModule } from "./auth/auth-module.js";
import { ensureAdmin, loadGroups, loadUsers, type GeneratedAdmin } from "./auth/users.js";
import { httpModule } from "./http-module.js";
import { serverFor } from "./server.js";
import { HTTP_IDS } from "./di-identifiers.js";

export interface ServiceOptions extends Pick<ComposeOptions, "storage" | "orchestrator" | "logDestination" | "clock"> {
  /**
   * Where the one-time generated admin password, or at a restart the reminder of that admin, is printed (default
   * stdout): once the service listens and its logs are written, so that it is the last thing a first start prints.
   */
  readonly announce?: (text: string) => void;
  /** False serves without credentials (benchmarks only). */
  readonly authenticate?: boolean;
  /** How long shutdown waits for in-flight requests before closing their connections. */
  readonly drainTimeoutMs?: number;
}

export interface RunningService {
  /** `http://host:port`, with the port actually bound. */
  readonly url: string;
  readonly composition: Composition;
  /** Stops accepting, drains in-flight requests, then unbinds the container (which closes the store). Safe to call twice. */
  close(): Promise<void>;
}

const announceGeneratedAdmin = ({ user, file, password }: GeneratedAdmin): string =>
  password === undefined
    ? `Users: the admin generated at the first start, \`${user}\` (its password was shown then; only its hash is kept, in ${resolve(file)}: delete that file and restart for a new one).\n`
    : [
        "",
        "No users were configured, so an admin was created (only its bcrypt hash is stored).",
        `  user:     ${user}`,
        `  password: ${password}`,
        `  stored in ${resolve(file)}; this password is shown only now.`,
        "",
        "",
      ].join("\n");

/** Listens, or answers why not (the port taken, the address not available). */
const listen =
  (server: Server, config: Config): TaskEither<string, string> =>
  async () => {
    try {
      await Promise.race([
        once(server, "listening"),
        once(server, "error").then(([error]) => Promise.reject(error as Error)),
      ]);
    } catch (error) {
      return E.left(
        `SDWAN_HOST/SDWAN_PORT: cannot listen on ${config.host}:${config.port} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
    const { address, port } = server.address() as AddressInfo;
    return E.right(`http://${address.includes(":") ? `[${address}]` : address}:${port}`);
  };

/**
 * The REST service: creates the generated admin if no user exists, composes
 * the container (the composition's modules plus authentication and the app),
 * and listens. Fails with one line for the operator.
 */
export const startService =
  (config: Config, options: ServiceOptions = {}): TaskEither<string, RunningService> =>
  async () => {
    const generated = await ensureAdmin(config)();
    if (E.isLeft(generated)) return generated;
    const announce = (admin: GeneratedAdmin) =>
      (options.announce ?? ((text) => process.stdout.write(text)))(announceGeneratedAdmin(admin));
    const started = await serve(config, options, announce, generated.right)();
    // A first start that failed after making the admin still shows its password: it is never shown again.
    if (E.isLeft(started) && generated.right !== undefined) announce(generated.right);
    return started;
  };

/** `startService` once the generated admin is made: `announce` tells it once the service listens. */
const serve =
  (
    config: Config,
    options: ServiceOptions,
    announce: (admin: GeneratedAdmin) => void,
    generated: GeneratedAdmin | undefined,
  ): TaskEither<string, RunningService> =>
  async () => {
    const users = await loadUsers(config)();
    if (E.isLeft(users)) return users;
    const groups = await loadGroups(config.groupsFile)();
    if (E.isLeft(groups)) return groups;

    const composed = await compose(config, {
      ...options,
      // Without the authentication bound, the app serves without credentials.
      modules: [...(options.authenticate === false ? [] : [authModule(users.right, groups.right)]), httpModule()],
    })();
    if (E.isLeft(composed)) return composed;
    const composition = composed.right;
    const { container } = composition;
    const logger = container.get(IDS.Logger);
    const lifecycle = container.get(HTTP_IDS.Lifecycle);
    // The driver's own modules activate here, after the composition's: a failure is one line too, after the store is released.
    const app = await container.getAsync(HTTP_IDS.App).then(E.right, (error: unknown) => E.left(startupFailure(error)));
    if (E.isLeft(app)) {
      await composition.close();
      return app;
    }

    const server: Server = serverFor(app.right).listen(config.port, config.host);
    server.keepAliveTimeout = 5_000;
    server.headersTimeout = 10_000;
    server.requestTimeout = 60_000;
    const url = await listen(server, config)();
    if (E.isLeft(url)) {
      // Release the store (and its lock) before giving up.
      await composition.close();
      return url;
    }
    logger.info({ url: url.right, storage: config.storage, dataDir: resolve(config.dataDir) }, "listening");
    if (generated !== undefined) {
      // The logs written first: the password must not scroll away above them.
      await new Promise<void>((flushed) => logger.flush(() => flushed()));
      announce(generated);
    }
    // Background health checks (SDWAN_HEALTH_INTERVAL_S): this service runs them; stopped when it closes.
    composition.service.health.monitor?.start();
    // Key renewal rounds (SPEC §12), at the same interval; unfinished renewals are finished by the first.
    composition.service.health.keyRenewal?.start();
    composition.service.health.keyExpiry.start();
    composition.service.health.keyReferences?.start();
    // The webhooks' relay: this instance claims due deliveries, as every other instance over the store does.
    const relay = composition.service.webhooks?.createRelay();
    relay?.start();

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        lifecycle.draining = true;
        // Event streams never end by themselves: ended first, so they do not hold the drain (clients reconnect elsewhere).
        for (const end of lifecycle.eventStreams) end();
        logger.info("shutting down: draining in-flight requests");
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), options.drainTimeoutMs ?? 10_000);
        await drained;
        clearTimeout(timer);
        await relay?.stop();
        logger.info("stopped");
        // Every module's deactivation: users' watchers, the use cases, the store, the orchestrator's sockets, the logs.
        await composition.close();
      })());

    return E.right({ url: url.right, composition, close });
  };
