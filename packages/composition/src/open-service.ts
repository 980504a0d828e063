/**
 * The one assembly of the service: store, orchestrator and use cases, opened from the configuration and closed
 * by one `close`. The CLI and embedders use it as it is; the REST service's `compose` binds what it opened into
 * its container. This entry loads no inversify: a command's start does not compile it.
 */
import { join } from "node:path";
import { MASTER_KEY_FILE } from "@sdwan-connections/secrets";
import {
  createCore,
  createKeyReader,
  nodeKeyFiles,
  describeError,
  systemClock,
  type Clock,
  type Core,
  type Orchestrator,
  type Storage,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { OutboundFetch } from "@sdwan-connections/outbound-http";
import type { DestinationStream } from "pino";
import type { Config } from "./config.js";
import { checkDataDirectory } from "./data-dir.js";
import { lazyLogSink, type LogSink } from "./log-sink.js";
import type { Metrics } from "./metrics.js";
import { closeOrchestrator, loadCertificateAuthorities, openPortalOrchestrator } from "./parts/orchestrator.js";
import { outboundHttp } from "./parts/outbound.js";
import { configurationFailure, startupFailure, type StartFailure } from "./startup-error.js";
import type { Tracing } from "./tracing.js";
import { openStore } from "./stores.js";

export { loadConfig, type Config } from "./config.js";
export { processEnvironment } from "./environment.js";
export { describeMissingStore } from "./data-dir.js";
export { offlineOrchestrator } from "./parts/orchestrator.js";
export { locateStore, type StoreLocation } from "./stores.js";
export type { StartFailure } from "./startup-error.js";
export { MASTER_KEY_FILE } from "@sdwan-connections/secrets";

/** Values that replace what the configuration would open; what is given here is the caller's to close. */
export interface ServiceOverrides {
  /** Where the JSON logs go (default stdout); pino is loaded at the first line logged. */
  readonly logDestination?: DestinationStream;
  /** The log lines' sink, instead of one made for `logDestination` (the REST service's pino logger). */
  readonly logger?: LogSink;
  readonly clock?: Clock;
  /** Instead of the store SDWAN_STORAGE names (tests: core's `createInMemoryStorage`). */
  readonly storage?: Storage;
  /** Instead of the orchestrator-portal client: core's in-memory fake, or `offlineOrchestrator` for a command that never asks one. */
  readonly orchestrator?: Orchestrator;
  /** Orchestrator calls measured, health counts and customers cache lookups counted (none unless given: nobody scrapes a command). */
  readonly metrics?: Metrics;
  /** Spans for store calls, orchestrator calls and webhook POSTs (none unless given: the REST service's, when OTEL_* turn traces on; a command exports none). */
  readonly tracing?: Tracing;
  /** The variable the PostgreSQL URL was read from, named in a failure (default SDWAN_DATABASE_URL; a CLI context names its own). */
  readonly databaseUrlVariable?: string;
  /** The caller only reads (a CLI `list`): the store opens without a start's upkeep (see openLowdbStorage's `readsOnly`). */
  readonly readsOnly?: boolean;
}

/** An opened service: the store opened, the use cases ready. */
export interface OpenedService {
  readonly config: Config;
  readonly storage: Storage;
  readonly orchestrator: Orchestrator;
  readonly service: Core;
  /** A GET through outbound-http's client (the fence, the CAs): the OpenID provider's documents. */
  readonly fetch: OutboundFetch;
  /** The service first (the audit entries it is still recording reach the store), then the orchestrator's sockets, the store, the logs. */
  close(): Promise<void>;
}

/**
 * Checks the data directory's mode, opens the store (the master key checked), the orchestrator client (the CA
 * file read) and the use cases. Background health checks are configured (SDWAN_HEALTH_INTERVAL_S) but started by
 * the service that runs them, never a CLI command. A failure closes whatever was already opened and answers
 * one line for the operator, and whether the store failed or what the start was given.
 */
export const openService =
  (config: Config, overrides: ServiceOverrides = {}): TaskEither<StartFailure, OpenedService> =>
  async () => {
    const dataDir = await checkDataDirectory(config.dataDir)();
    if (E.isLeft(dataDir)) return E.left(configurationFailure(dataDir.left));
    const sink = lazyLogSink(config.logLevel, overrides.logDestination);
    const logger = overrides.logger ?? sink;
    // What was opened here, closed in the reverse order.
    const opened: (() => Promise<void> | void)[] = [sink.flush];
    const close = async () => {
      for (const closeOne of [...opened].reverse()) await closeOne();
    };
    try {
      // Without a tracing (traces off, or a command) nothing below is wrapped.
      const { tracing } = overrides;
      const store =
        overrides.storage === undefined
          ? await openStore(config, logger, {
              databaseUrlVariable: overrides.databaseUrlVariable ?? "SDWAN_DATABASE_URL",
              readsOnly: overrides.readsOnly === true,
            })()
          : E.right(overrides.storage);
      if (E.isLeft(store)) return await close().then(() => store);
      if (overrides.storage === undefined) opened.push(() => store.right.close());
      const storage = tracing?.traceStorage(store.right, config.storage) ?? store.right;
      const caFile = loadCertificateAuthorities(config.orchestratorCaFile);
      const orchestrator =
        overrides.orchestrator === undefined
          ? await openPortalOrchestrator(config, logger, caFile, tracing)()
          : E.right(overrides.orchestrator);
      if (E.isLeft(orchestrator)) return await close().then(() => E.left(configurationFailure(orchestrator.left)));
      if (overrides.orchestrator === undefined) opened.push(() => closeOrchestrator(orchestrator.right));
      const { metrics } = overrides;
      const traced = tracing?.traceOrchestrator(orchestrator.right) ?? orchestrator.right;
      // After each round of checks: the counts per state for /metrics.
      const outbound = outboundHttp(config, logger, caFile, tracing);
      opened.push(outbound.close);
      const refreshHealthCounts = async () => {
        const health = await service.health.list()();
        if (E.isRight(health)) metrics?.setHealthCounts(health.right.map((entry) => entry.state));
      };
      const service = createCore({
        storage,
        orchestrator: metrics?.instrumentOrchestrator(traced) ?? traced,
        clock: overrides.clock ?? systemClock,
        onAuditFailure: (error) => logger.error({ problem: describeError(error) }, "audit entry not recorded"),
        health: {
          ...(config.healthIntervalMs === undefined ? {} : { intervalMs: config.healthIntervalMs }),
          onChange: ({ alias, from, to, check }) =>
            logger.info({ alias, from, to, reason: check.reason }, "connection health changed"),
          onRound: () => void refreshHealthCounts(),
          onError: (error) => logger.warn({ problem: describeError(error) }, "connection health not read or written"),
        },
        keyExpiry: { warnDays: config.keyExpiryWarnDays },
        // A renewal's lease outlasts its longest step (one orchestrator request, several calls) and a round or two.
        keyRenewal: {
          ...config.keyRenewal,
          leaseMs: Math.max(2 * (config.healthIntervalMs ?? 0), 4 * config.orchestratorTimeoutMs),
        },
        keyReferences: {
          reader: createKeyReader(nodeKeyFiles, {
            env: config.keyReferences.env,
            keyDir: config.apiKeyDir,
            dataDir: config.dataDir,
            masterKeyFile: join(config.dataDir, MASTER_KEY_FILE),
            masterKeys: [
              ...(config.masterKey === undefined ? [] : [config.masterKey]),
              ...config.previousMasterKeys,
            ].map(({ key }) => key),
          }),
          rereadIntervalMs: config.keyReferences.rereadMs,
        },
        customersCacheTtlMs: config.customersCacheTtlMs,
        ...(metrics === undefined ? {} : { onCustomersCacheLookup: metrics.onCustomersCacheLookup }),
        webhooks: outbound.webhooks,
      });
      metrics?.watchKeyExpiry(service.health.keyExpiry.counts);
      opened.push(() => service.dispose());
      return E.right({ config, storage, orchestrator: orchestrator.right, service, fetch: outbound.fetch, close });
    } catch (error) {
      await close().catch(() => undefined);
      return E.left(configurationFailure(startupFailure(error)));
    }
  };
