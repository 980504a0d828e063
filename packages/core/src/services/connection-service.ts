import * as E from "fp-ts/lib/Either.js";
import { createGrantService, type GrantService } from "./grants.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Actor } from "../domain/audit.js";
import type { Alias } from "../domain/codecs.js";
import type { ConnectionSummary } from "../domain/connection.js";
import type { CustomerList } from "../domain/customer-list.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionHealth } from "../domain/health.js";
import type { Webhook } from "../domain/webhook.js";
import type { KeyRotationReport } from "../ports/connection-repository.js";
import {
  createAuditTrail,
  type AuditedToken,
  type AuditPage,
  type TokenChange,
  type WebhookChange,
} from "./audit-trail.js";
import { followEvents, type FeedDelivery, type FollowOptions } from "./event-feed.js";
import { decodeEventsQuery } from "../domain/events.js";
import { createCustomersCache, type CacheOutcome } from "./customers-cache.js";
import { createHealthMonitor, type HealthChange, type HealthMonitor } from "./health-monitor.js";
import { createIdentityMemory } from "./identity-memory.js";
import { createKeyExpiryWatch, type KeyExpiryCounts } from "./key-expiry-watch.js";
import { DEFAULT_KEY_EXPIRY_WARN_DAYS } from "../domain/key-expiry.js";
import { createHealthStates, identifyAsCheck } from "./health-states.js";
import type { KeyReader } from "./key-reader.js";
import { readingKeyReferences, refusingKeyReader, refusingUnreadKeys } from "./key-references.js";
import {
  createKeyReferenceWatch,
  DEFAULT_KEY_REREAD_INTERVAL_MS,
  type KeyReferenceWatch,
} from "./key-reference-watch.js";
import { listConnectionsHealth } from "../use-cases/list-connections-health.js";
import { EVERY_CONNECTION } from "../ports/connection-changes.js";
import { systemClock } from "../adapters/system-clock.js";
import type { Clock } from "../ports/clock.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import type { Storage } from "../ports/storage.js";
import { addConnection, type AddConnectionOptions, type AddConnectionOutcome } from "../use-cases/add-connection.js";
import { checkApiKey } from "../use-cases/check-api-key.js";
import {
  applyPlan,
  planConfiguration,
  type ApplyOptions,
  type Plan,
  type PlanOptions,
  type StepResult,
} from "../use-cases/configuration.js";
import { deleteConnection, type DeleteConnectionOptions } from "../use-cases/delete-connection.js";
import { describeConnection, type ConnectionDetails } from "../use-cases/describe-connection.js";
import { listConnections } from "../use-cases/list-connections.js";
import { listPartnerCustomers } from "../use-cases/list-partner-customers.js";
import { rotateMasterKey } from "../use-cases/rotate-master-key.js";
import {
  updateConnection,
  type UpdateConnectionOptions,
  type UpdateConnectionOutcome,
} from "../use-cases/update-connection.js";
import { validateConnection, type ValidationResult } from "../use-cases/validate-connection.js";

export const DEFAULT_CUSTOMERS_CACHE_TTL_MS = 60_000;

export interface ConnectionServiceOptions {
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
   * `scanIntervalMs` (a day) once `keyExpiryWatch.start` is called; `onCounts` hears the counts for /metrics.
   */
  readonly keyExpiry?: {
    readonly warnDays?: readonly number[];
    readonly scanIntervalMs?: number;
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
}

type By = { readonly by?: Actor };

/** Every use case over one store and one orchestrator. Every write is audited as done by `by` (anonymous when not given), failed ones included. */
export interface ConnectionService {
  listConnections(): TE.TaskEither<DomainError, readonly ConnectionSummary[]>;
  addConnection(body: unknown, options?: AddConnectionOptions & By): TE.TaskEither<DomainError, AddConnectionOutcome>;
  updateConnection(
    rawAlias: string,
    body: unknown,
    options?: UpdateConnectionOptions & By,
  ): TE.TaskEither<DomainError, UpdateConnectionOutcome>;
  validateConnection(rawAlias: string): TE.TaskEither<DomainError, ValidationResult>;
  /** One connection as stored (version, key date, key fingerprint), without asking the orchestrator. */
  describeConnection(rawAlias: string): TE.TaskEither<DomainError, ConnectionDetails>;
  /** A key that does not match is audited as a refused attempt by `by` (a guess at the key), before the answer. */
  checkApiKey(rawAlias: string, body: unknown, options?: By): TE.TaskEither<DomainError, { readonly matches: boolean }>;
  /** Audits a write refused to `by`, a user who may only read (the driver refuses it; `method` is the request's). */
  recordForbiddenWrite(by: Actor, write: { readonly method: string; readonly alias?: string }): Promise<void>;
  /** Audits a service token created, renewed or revoked by `by` (the driver manages the tokens): a change, never the secret. */
  recordTokenChange(by: Actor, action: TokenChange, token: AuditedToken): Promise<void>;
  /** Audits a webhook delivery sent again by `by` (the driver asks the webhooks): an attempt, its ids in `detail`. */
  recordWebhookRedelivery(
    by: Actor,
    redelivered: { readonly webhookId: string; readonly deliveryId: string; readonly eventId: string },
  ): Promise<void>;
  /** Audits a webhook created, deleted or disabled (the composition opens the webhooks beside the service): a change, never its secret. */
  recordWebhookChange(by: Actor | undefined, action: WebhookChange, webhook: Webhook): Promise<void>;
  deleteConnection(rawAlias: string, options?: DeleteConnectionOptions & By): TE.TaskEither<DomainError, void>;
  listPartnerCustomers(rawAlias: string): TE.TaskEither<DomainError, CustomerList>;
  rotateMasterKey(options?: By): TE.TaskEither<DomainError, KeyRotationReport>;
  /** What applying a configuration (connections with their keys) would change; see `planConfiguration`. */
  planConfiguration(rawDesired: unknown, options?: PlanOptions): TE.TaskEither<DomainError, Plan>;
  /** Carries out a plan through the audited writes, as `by`; a failed step does not stop the rest. */
  applyPlan(plan: Plan, options?: ApplyOptions & By): Promise<readonly StepResult[]>;
  /** Every connection's health: the last background check's or validation's outcome (`unknown` until one). */
  connectionsHealth(): TE.TaskEither<DomainError, readonly ConnectionHealth[]>;
  /** The periodic checks, when an interval was given: started by whoever runs the service. */
  readonly healthMonitor: HealthMonitor | undefined;
  /** The re-reading of keys kept elsewhere (SPEC §12), when a reader was given: started by whoever runs the service. */
  readonly keyReferenceWatch: KeyReferenceWatch | undefined;
  /** The keys' expiry: `start()` (by whoever runs the service) scans the stored dates now and daily; `counts()` for /metrics. */
  readonly keyExpiryWatch: { start(): void; scanNow(): Promise<void>; counts(): KeyExpiryCounts };
  /**
   * A page of the audit trail, newest first, from a query given as text (`alias`, `since`, `limit`, `before`). With
   * `readable`, only the entries of connections it answers true for, the page filled to `limit` of them and its
   * cursor derived from them alone (SPEC §11).
   */
  listAudit(
    query: Readonly<Record<string, unknown>>,
    readable?: (alias: string) => boolean,
  ): TE.TaskEither<DomainError, AuditPage>;
  /**
   * Follows the event log for one reader, from a query given as text (`types`, `alias`, `lastEventId`): what
   * came after `lastEventId` (or a reset), then every new event, each handed to `deliver`. Answers the stop.
   * A follow that opened and then cannot go on (through a service: credentials no longer accepted) stops and
   * tells `ended` why, once; the store's own feed never stops by itself, so it never calls it. `options`: what
   * the reader may read, when it opened, and when it left (`FollowOptions`); a promise `deliver` answers while
   * catching up is waited for.
   */
  followEvents(
    query: Readonly<Record<string, unknown>>,
    deliver: FeedDelivery,
    ended?: (error: DomainError) => void,
    options?: FollowOptions,
  ): TE.TaskEither<DomainError, () => void>;
  /** Who may do what on which aliases (SPEC §11): grants kept in memory, their changes audited. */
  readonly grants: GrantService;
  /** Stops listening for changes and waits for the health changes' entries still being recorded; the store belongs to the caller. */
  dispose(): Promise<void>;
}

/**
 * Every use case wired to one store and one orchestrator: an embedding service calls this and gets the same
 * behaviour, audit trail and customers cache included, as the REST service and the CLI.
 */
export const createConnectionService = (options: ConnectionServiceOptions): ConnectionService => {
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
          intervalMs: options.keyReferences?.rereadIntervalMs ?? DEFAULT_KEY_REREAD_INTERVAL_MS,
          validate: async (connection) =>
            healthStates.record(connection, (await identifyAsCheck(orchestrator, connection)()).check)(),
          onError: health.onError,
        });
  const grants = createGrantService({ store: options.storage.grants, audited: trail.grantChanged });

  return {
    listConnections: listConnections({ repository }),
    addConnection: addConnectionAudited,
    updateConnection: updateConnectionAudited,
    validateConnection: validateConnection({
      repository,
      orchestrator,
      fingerprints,
      recordHealth: healthStates.record,
      learnedExpiry: watch.learned,
    }),
    describeConnection: describeConnection({ repository, fingerprints, learnedExpiry: watch.learned }),
    checkApiKey: (rawAlias: string, body: unknown, options: By = {}) =>
      pipe(
        checkKey(rawAlias, body),
        TE.tap((result) =>
          result.matches ? TE.right(undefined) : TE.fromTask(() => trail.keyMismatch(options.by, rawAlias)),
        ),
      ),
    recordForbiddenWrite: (by: Actor, write: { readonly method: string; readonly alias?: string }): Promise<void> =>
      trail.forbidden(by, write),
    recordTokenChange: trail.tokenChanged,
    recordWebhookRedelivery: trail.webhookRedelivered,
    recordWebhookChange: trail.webhookChanged,
    deleteConnection: deleteConnectionAudited,
    listPartnerCustomers: listPartnerCustomers({ repository, orchestrator, identities, customersCache }),
    rotateMasterKey: (options: By = {}) =>
      trail.audited(options.by, trail.ofRotation(), (through) => rotateMasterKey({ repository: through, webhooks })()),
    planConfiguration: planConfiguration({ repository, fingerprints, grants }),
    applyPlan: (plan: Plan, options: ApplyOptions & By = {}) => {
      const by = options.by === undefined ? {} : { by: options.by };
      return applyPlan({
        add: (body, force) => addConnectionAudited(body, { force, ...by }),
        update: (alias, change, force) => updateConnectionAudited(alias, change, { force, ...by }),
        remove: (alias) => deleteConnectionAudited(alias, by),
        addGrant: (grant) => grants.add(grant, options.by),
        removeGrant: (id) => grants.remove(id, options.by),
      })(plan, options);
    },
    connectionsHealth: listConnectionsHealth({ repository, ledger }),
    healthMonitor: monitor,
    keyReferenceWatch: referenceWatch,
    keyExpiryWatch: {
      // With background health, its rounds make the warnings; the scan then only keeps the counts.
      start: () => watch.start(monitor === undefined, options.keyExpiry?.scanIntervalMs),
      scanNow: () => watch.scan(monitor === undefined)(),
      counts: watch.counts,
    },
    listAudit: trail.list,
    followEvents: (query, deliver, _ended, options) =>
      pipe(
        TE.fromEither(decodeEventsQuery(query)),
        TE.flatMap((decoded) => followEvents(audit)(decoded, deliver, options)),
      ),
    grants,
    dispose: async (): Promise<void> => {
      unsubscribe();
      grants.dispose();
      await monitor?.stop();
      await referenceWatch?.stop();
      await watch.stop();
      await trail.settled();
    },
  };
};
