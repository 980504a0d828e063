import * as E from "fp-ts/lib/Either.js";
import { createGrantService } from "./grants.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Alias } from "../domain/codecs.js";
import type { DomainError } from "../domain/errors.js";
import { createAuditTrail } from "./audit-trail.js";
import { followEvents } from "./event-feed.js";
import type { By, Core } from "./facades.js";
import { createServiceTokens } from "./service-tokens.js";
import { createWebhooks, type WebhooksOptions } from "./webhooks.js";
import { decodeEventsQuery } from "../domain/events.js";
import { createCustomersCache, type CacheOutcome } from "./customers-cache.js";
import { createHealthMonitor, type HealthChange } from "./health-monitor.js";
import { createIdentityMemory } from "./identity-memory.js";
import { createKeyExpiryWatch } from "./key-expiry-watch.js";
import { DEFAULT_KEY_EXPIRY_WARN_DAYS } from "../domain/key-expiry.js";
import { DEFAULT_KEY_RENEW_DAYS, DEFAULT_KEY_RENEW_OVERLAP_HOURS } from "../domain/key-renewal.js";
import { createKeyRenewals, type KeyRenewals } from "./key-renewals.js";
import { createHealthStates } from "./health-states.js";
import { identifyAsCheck } from "../use-cases/identify-target.js";
import type { KeyReader } from "./key-reader.js";
import { readingKeyReferences, refusingKeyReader, refusingUnreadKeys } from "./key-references.js";
import { createKeyReferenceWatch, DEFAULT_KEY_REREAD_INTERVAL_MS } from "./key-reference-watch.js";
import { listConnectionsHealth } from "../use-cases/list-connections-health.js";
import { EVERY_CONNECTION } from "../ports/connection-changes.js";
import { systemClock } from "../adapters/system-clock.js";
import type { Clock } from "../ports/clock.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import type { Storage } from "../ports/storage.js";
import { addConnection, type AddConnectionOptions } from "../use-cases/add-connection.js";
import { checkApiKey } from "../use-cases/check-api-key.js";
import { applyPlan, planConfiguration, type ApplyOptions, type Plan } from "../use-cases/configuration.js";
import { deleteConnection, type DeleteConnectionOptions } from "../use-cases/delete-connection.js";
import { describeConnection } from "../use-cases/describe-connection.js";
import { listConnections } from "../use-cases/list-connections.js";
import { listPartnerCustomers } from "../use-cases/list-partner-customers.js";
import { rotateMasterKey } from "../use-cases/rotate-master-key.js";
import { updateConnection, type UpdateConnectionOptions } from "../use-cases/update-connection.js";
import { validateConnection } from "../use-cases/validate-connection.js";

export const DEFAULT_CUSTOMERS_CACHE_TTL_MS = 60_000;

export interface CoreOptions {
  /**
   * The store's whole face: the connections, the audit trail (the store records each change's entry with the
   * change), the change notices shared by the instances over it, the apiKey fingerprints and the health states.
   * `createInMemoryStorage()` keeps them all in this process. The caller closes it, after `dispose`.
   */
  readonly storage: Storage;
  readonly orchestrator: Orchestrator;
  readonly clock?: Clock;
  /** Told when an attempt's entry could not be recorded (the attempt's answer stands; a change is not made without its entry). */
  readonly onAuditFailure?: (error: DomainError) => void;
  /**
   * Background health checks every `intervalMs` (none unless given; every validation records its outcome and
   * every delete removes the connection's state either way); `onChange` hears each state change a background
   * check finds (audited as well), `onError` a state not read or written.
   */
  readonly health?: {
    readonly intervalMs?: number;
    readonly onChange?: (change: HealthChange) => void;
    readonly onRound?: () => void;
    readonly onError?: (error: DomainError) => void;
  };
  /**
   * Key-expiry warnings (docs/interface.md §10), at `warnDays` days before (default 30, 7, 1) and at expiry:
   * made by the background health rounds when they run, else by a scan of the stored dates every
   * day once `keyExpiryWatch.start` is called; `onCounts` hears the counts for /metrics.
   */
  readonly keyExpiry?: { readonly warnDays?: readonly number[] };
  /**
   * Key renewal (SPEC §12) of connections with `keyRenewal: auto`, in rounds at the background health interval (none
   * without one): `renewDays` (default 30) before the key's expiry; a partner's old token revoked `overlapMs`
   * (default 24 h; 0: at once) after its successor is stored. `leaseMs`: how long a dead instance's renewal stays
   * its own (default 5 minutes).
   */
  readonly keyRenewal?: {
    readonly renewDays?: number;
    readonly overlapMs?: number;
    readonly leaseMs?: number;
  };
  /**
   * Keys kept elsewhere (SPEC §12): `reader` reads an `apiKeyRef` (none: every reference is refused), and every
   * `rereadIntervalMs` (default 30 s) the watch reads them again, validating a key that changed, once `start` is called.
   */
  readonly keyReferences?: { readonly reader: KeyReader; readonly rereadIntervalMs?: number };
  /** Customers cache TTL; 0 disables caching. Defaults to 60 s. */
  readonly customersCacheTtlMs?: number;
  /** Observes each customers cache lookup (for metrics). */
  readonly onCustomersCacheLookup?: (outcome: CacheOutcome) => void;
  /** How webhooks are sent (SPEC §9): without a sender there are no webhooks (`Core.webhooks` undefined). */
  readonly webhooks?: Omit<WebhooksOptions, "store" | "clock" | "trail" | "audited" | "auditedRedelivery">;
}

/**
 * The one assembly: every rule wired to one store and one orchestrator, answered as one facade per capability.
 * An embedding service calls this and gets the same behaviour, audit trail and customers cache included, as the
 * REST service and the CLI.
 */
export const createCore = (options: CoreOptions): Core => {
  const { changes, fingerprints, audit, health: ledger, webhooks } = options.storage;
  const keys = options.keyReferences?.reader ?? refusingKeyReader;
  // A key kept elsewhere is read whenever its connection is (SPEC §12); the store keeps only the reference.
  const repository = readingKeyReferences(options.storage.repository, keys);
  // Every identification (add, update, validate, customers, health) is remembered, for the customers' single round trip.
  const identities = createIdentityMemory();
  const orchestrator = refusingUnreadKeys(identities.remembering(options.orchestrator));
  const customersCache = createCustomersCache({
    ttlMs: options.customersCacheTtlMs ?? DEFAULT_CUSTOMERS_CACHE_TTL_MS,
    clock: options.clock ?? systemClock,
    ...(options.onCustomersCacheLookup === undefined ? {} : { onLookup: options.onCustomersCacheLookup }),
  });
  const unsubscribe = changes.subscribe((notice) =>
    notice === EVERY_CONNECTION ? customersCache.clear() : customersCache.drop(notice),
  );
  const trail = createAuditTrail({ audit, repository, onFailure: options.onAuditFailure });
  const health = options.health ?? {};
  // A validation's outcome is recorded as the connection's health; a state it changes is audited (an event) once,
  // by the validation that changed it (the ledger answers the state before each record), before it answers.
  const healthStates = createHealthStates({
    ledger,
    repository,
    onChange: (change) => trail.healthChanged(change, "validation"),
    onError: health.onError,
  });
  const clock = options.clock ?? systemClock;
  const watch = createKeyExpiryWatch({
    repository,
    ledger,
    warn: trail.keyExpiryWarned,
    tokens: options.storage.serviceTokens,
    warnToken: trail.tokenExpiryWarned,
    thresholds: options.keyExpiry?.warnDays ?? DEFAULT_KEY_EXPIRY_WARN_DAYS,
    clock,
    orchestrator,
    onError: health.onError,
  });
  const monitor =
    health.intervalMs === undefined
      ? undefined
      : createHealthMonitor({
          repository,
          orchestrator,
          ledger,
          intervalMs: health.intervalMs,
          onChange: (change) => {
            void trail.healthChanged(change);
            health.onChange?.(change);
          },
          onChecked: (connection) => watch.check(connection)(),
          onRound: health.onRound,
          onError: health.onError,
        });
  const renewal =
    health.intervalMs === undefined ? undefined : renewalOf(options, health.intervalMs, { watch, trail, orchestrator });
  // What a write stored is watched at once (for the counts; warnings come from the rounds and scans).
  const watchStored = (rawAlias: unknown) =>
    TE.fromTask<void, DomainError>(async () => {
      const stored = typeof rawAlias === "string" ? await repository.get(rawAlias as Alias)() : undefined;
      if (stored !== undefined && E.isRight(stored)) await watch.check(stored.right, { warn: false, ask: false })();
    });
  // Each audited write's use case writes through the repository the trail gives it (one that carries the entry).
  const addConnectionAudited = (body: unknown, options: AddConnectionOptions & By = {}) =>
    pipe(
      trail.audited(options.by, trail.ofAdd(body, options), (through) =>
        addConnection({ repository: through, orchestrator, keys })(body, options),
      ),
      TE.tap((outcome) =>
        outcome === "added" ? watchStored((body as Record<string, unknown>)["alias"]) : TE.right(undefined),
      ),
    );
  const updateConnectionAudited = (rawAlias: string, body: unknown, options: UpdateConnectionOptions & By = {}) =>
    pipe(
      trail.audited(options.by, trail.ofUpdate(rawAlias, body, options), (through) =>
        updateConnection({ repository: through, orchestrator, changes, keys })(rawAlias, body, options),
      ),
      TE.tap((outcome) => (outcome === "updated" ? watchStored(rawAlias) : TE.right(undefined))),
    );
  const deleteConnectionAudited = (rawAlias: string, options: DeleteConnectionOptions & By = {}) =>
    pipe(
      trail.audited(options.by, trail.ofDelete(rawAlias), (through) =>
        deleteConnection({ repository: through, changes, forgetHealth: healthStates.forget })(rawAlias, options),
      ),
      TE.tap(() => TE.right(watch.forget(rawAlias))),
    );
  const checkKey = checkApiKey({ repository, fingerprints });
  const referenceWatch =
    options.keyReferences === undefined
      ? undefined
      : createKeyReferenceWatch({
          repository,
          fingerprints,
          intervalMs: options.keyReferences.rereadIntervalMs ?? DEFAULT_KEY_REREAD_INTERVAL_MS,
          validate: async (connection) =>
            healthStates.record(connection, (await identifyAsCheck(orchestrator, connection)()).check)(),
          onError: health.onError,
        });
  const grants = createGrantService({ store: options.storage.grants, audited: trail.grantChanged });

  return {
    connections: {
      list: listConnections({ repository }),
      add: addConnectionAudited,
      update: updateConnectionAudited,
      validate: validateConnection({
        repository,
        orchestrator,
        fingerprints,
        recordHealth: healthStates.record,
        learnedExpiry: watch.learned,
      }),
      describe: describeConnection({ repository, fingerprints, learnedExpiry: watch.learned }),
      checkKey: (rawAlias: string, body: unknown, options: By = {}) =>
        pipe(
          checkKey(rawAlias, body),
          TE.tap((result) =>
            result.matches ? TE.right(undefined) : TE.fromTask(() => trail.keyMismatch(options.by, rawAlias)),
          ),
        ),
      delete: deleteConnectionAudited,
      customers: listPartnerCustomers({ repository, orchestrator, identities, customersCache }),
      rotateMasterKey: (options: By = {}) =>
        trail.audited(options.by, trail.ofRotation(), (through) =>
          rotateMasterKey({ repository: through, webhooks })(),
        ),
      plan: planConfiguration({ repository, fingerprints, grants }),
      apply: (plan: Plan, options: ApplyOptions & By = {}) => {
        const by = options.by === undefined ? {} : { by: options.by };
        return applyPlan({
          add: (body, force) => addConnectionAudited(body, { force, ...by }),
          update: (alias, change, force) => updateConnectionAudited(alias, change, { force, ...by }),
          remove: (alias) => deleteConnectionAudited(alias, by),
          addGrant: (grant) => grants.add(grant, options.by),
          removeGrant: (id) => grants.remove(id, options.by),
        })(plan, options);
      },
    },
    audit: { list: trail.list, forbidden: trail.forbidden },
    events: {
      follow: (query, deliver, _ended, options) =>
        pipe(
          TE.fromEither(decodeEventsQuery(query)),
          TE.flatMap((decoded) => followEvents(audit)(decoded, deliver, options)),
        ),
    },
    health: {
      list: listConnectionsHealth({ repository, ledger }),
      monitor,
      keyReferences: referenceWatch,
      keyExpiry: {
        // With background health, its rounds make the warnings; the scan then only keeps the counts.
        start: () => watch.start(monitor === undefined),
        scanNow: () => watch.scan(monitor === undefined)(),
        counts: watch.counts,
      },
      keyRenewal:
        renewal === undefined || health.intervalMs === undefined
          ? undefined
          : { start: () => renewal.start(health.intervalMs ?? 0), round: renewal.round },
    },
    webhooks:
      options.webhooks === undefined
        ? undefined
        : createWebhooks({
            ...options.webhooks,
            store: webhooks,
            // Every commit over the store (this instance's and, by the change feed SSE uses, every other's) wakes the relay.
            trail: audit,
            clock,
            audited: trail.webhookChanged,
            auditedRedelivery: trail.webhookRedelivered,
          }),
    grants,
    tokens: createServiceTokens({ store: options.storage.serviceTokens, clock, grants, audited: trail.tokenChanged }),
    dispose: async (): Promise<void> => {
      unsubscribe();
      grants.dispose();
      await monitor?.stop();
      await referenceWatch?.stop();
      await renewal?.stop();
      await watch.stop();
      await trail.settled();
    },
  };
};

/** The last warning's threshold (days): the smallest above 0, or 0 (at expiry) when there is none. */
const lastWarning = (warnDays: readonly number[]): number => {
  const positive = warnDays.filter((days) => days > 0);
  return positive.length === 0 ? 0 : Math.min(...positive);
};

/** The key renewals of the core `options` makes, its rounds as often as the health rounds. */
const renewalOf = (
  options: CoreOptions,
  intervalMs: number,
  parts: {
    readonly watch: ReturnType<typeof createKeyExpiryWatch>;
    readonly trail: ReturnType<typeof createAuditTrail>;
    readonly orchestrator: Orchestrator;
  },
): KeyRenewals =>
  createKeyRenewals({
    repository: options.storage.repository,
    orchestrator: parts.orchestrator,
    ledger: options.storage.renewals,
    clock: options.clock ?? systemClock,
    renewDays: options.keyRenewal?.renewDays ?? DEFAULT_KEY_RENEW_DAYS,
    overlapMs: options.keyRenewal?.overlapMs ?? DEFAULT_KEY_RENEW_OVERLAP_HOURS * 3600_000,
    expiryOf: parts.watch.expiryOf,
    renewedEntry: parts.trail.keyRenewedEntry,
    failed: parts.trail.keyRenewalFailed,
    lastWarningDays: lastWarning(options.keyExpiry?.warnDays ?? DEFAULT_KEY_EXPIRY_WARN_DAYS),
    retryBaseMs: intervalMs,
    ...(options.keyRenewal?.leaseMs === undefined ? {} : { leaseMs: options.keyRenewal.leaseMs }),
    onError: options.health?.onError,
  });
