import type { ConnectionService, Storage } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { Container, type ContainerModule } from "inversify";
import type { Config } from "./config.js";
import { checkDataDirectory } from "./data-dir.js";
import { coreModule } from "./modules/core.js";
import { lowdbStorageModule } from "./modules/lowdb.js";
import { observabilityModule, type ObservabilityOptions } from "./modules/observability.js";
import { portalOrchestratorModule } from "./modules/portal.js";
import { postgresStorageModule } from "./modules/postgres.js";
import { postgresUrlOf } from "./parts/storage.js";
import { startupFailure } from "./startup-error.js";
import { TOKENS } from "./tokens.js";

export interface ComposeOptions extends ObservabilityOptions {
  /** Replaces the storage module SDWAN_STORAGE names (tests: `@sdwan-connections/composition/testing`). */
  readonly storage?: ContainerModule;
  /** Replaces the orchestrator-portal client module (tests: an in-memory orchestrator). */
  readonly orchestrator?: ContainerModule;
  /** A driver's own modules, loaded after the composition's (they may use its tokens). */
  readonly modules?: readonly ContainerModule[];
}

/** A started composition: every module activated, the use cases ready. */
export interface Composition {
  readonly container: Container;
  readonly config: Config;
  readonly service: ConnectionService;
  readonly storage: Storage;
  /** Unbinds everything: each module's deactivation closes what it opened (the store and its lock, sockets, logs). */
  close(): Promise<void>;
}

/** The storage module SDWAN_STORAGE names. */
export const storageModuleFor = (config: Config): ContainerModule => {
  const databaseUrl = postgresUrlOf(config);
  return databaseUrl === undefined ? lowdbStorageModule(config) : postgresStorageModule(config, databaseUrl);
};

/**
 * Builds the container from the configuration (one module per adapter) and
 * activates it: the data directory's mode checked, the store opened, the
 * master key checked, the CA file read. A failure closes whatever was already opened and answers one line
 * for the operator.
 */
export const compose =
  (config: Config, options: ComposeOptions = {}): TaskEither<string, Composition> =>
  async () => {
    const dataDir = await checkDataDirectory(config.dataDir)();
    if (E.isLeft(dataDir)) return dataDir;
    const container = new Container({ defaultScope: "Singleton" });
    const close = () => container.unbindAllAsync();
    // The I/O wrapper: activations fail by throwing, and only here is that caught.
    try {
      await container.loadAsync(
        observabilityModule(config, options),
        options.storage ?? storageModuleFor(config),
        options.orchestrator ?? portalOrchestratorModule(config),
        coreModule(),
        ...(options.modules ?? []),
      );
      const storage = await container.getAsync(TOKENS.Storage);
      const service = await container.getAsync(TOKENS.ConnectionService);
      // The service first: the audit entries it is still recording go to the store before the store closes.
      return E.right({ container, config, service, storage, close: () => service.dispose().then(close) });
    } catch (error) {
      await close().catch(() => undefined);
      return E.left(startupFailure(error));
    }
  };
