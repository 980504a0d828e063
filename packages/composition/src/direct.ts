/**
 * The composition without a container, for a process that runs one command and exits (the CLI): the same
 * parts as `compose` (store, orchestrator, use cases), made by plain calls, so that the command's start
 * does not load and compile inversify. No metrics: nobody scrapes a command.
 */
import { systemClock, type Clock, type ConnectionService, type Orchestrator, type Storage } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { DestinationStream } from "pino";
import type { Config } from "./config.js";
import { checkDataDirectory } from "./data-dir.js";
import { lazyLogSink } from "./log-sink.js";
import { closeOrchestrator, openPortalOrchestrator } from "./parts/orchestrator.js";
import { serviceFor } from "./parts/service.js";
import { openStorageFor } from "./parts/storage.js";
import { startupFailure } from "./startup-error.js";

export { loadConfig, processEnvironment, type Config } from "./config.js";
export { describeMissingStore, locateStore, type StoreLocation } from "./data-dir.js";
export { offlineOrchestrator } from "./parts/orchestrator.js";
export { MASTER_KEY_FILE } from "@sdwan-connections/secrets";

export interface DirectOptions {
  /** Where the JSON logs go (default stdout); pino is loaded at the first line logged. */
  readonly logDestination?: DestinationStream;
  readonly clock?: Clock;
  /** Replaces the orchestrator-portal client, e.g. `offlineOrchestrator` for a command that never asks one. */
  readonly orchestrator?: Orchestrator;
}

/** A started direct composition: the store opened, the use cases ready. */
export interface DirectComposition {
  readonly config: Config;
  readonly service: ConnectionService;
  readonly storage: Storage;
  /** The service first (the audit entries it is still recording reach the store), then the orchestrator's sockets, the store, the logs. */
  close(): Promise<void>;
}

/**
 * Checks the data directory's mode, opens the store (the master key checked), the orchestrator client (the
 * CA file read) and the use cases, as `compose` does. A failure closes whatever was already opened and
 * answers one line for the operator.
 */
export const composeDirect =
  (config: Config, options: DirectOptions = {}): TaskEither<string, DirectComposition> =>
  async () => {
    const dataDir = await checkDataDirectory(config.dataDir)();
    if (E.isLeft(dataDir)) return dataDir;
    const logger = lazyLogSink(config.logLevel, options.logDestination);
    // What was opened, closed in the reverse order.
    const opened: (() => Promise<void> | void)[] = [logger.flush];
    const close = async () => {
      for (const closeOne of [...opened].reverse()) await closeOne();
    };
    try {
      const storage = await openStorageFor(config, logger)();
      if (E.isLeft(storage)) return await close().then(() => storage);
      opened.push(() => storage.right.close());
      const orchestrator = options.orchestrator === undefined ? await openPortalOrchestrator(config, logger)() : E.right(options.orchestrator);
      if (E.isLeft(orchestrator)) return await close().then(() => orchestrator);
      opened.push(() => closeOrchestrator(orchestrator.right));
      const service = serviceFor({ config, storage: storage.right, orchestrator: orchestrator.right, logger, clock: options.clock ?? systemClock });
      opened.push(() => service.dispose());
      return E.right({ config, service, storage: storage.right, close });
    } catch (error) {
      await close().catch(() => undefined);
      return E.left(startupFailure(error));
    }
  };
