import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { AUDITED_FIELDS, CHANGE_ACTIONS, auditEntryId, decodeAuditQuery, type Actor, type AuditedField, type AuditAction, type AuditEntry, type AuditFailure, type AuditOutcome, type ValidationOutcome } from "../domain/audit.js";
import { AliasCodec, type Alias } from "../domain/codecs.js";
import type { ConnectionSummary } from "../domain/connection.js";
import type { CustomerList } from "../domain/customer-list.js";
import type { DomainError } from "../domain/errors.js";
import type { ConnectionHealth } from "../domain/health.js";
import type { AuditLog } from "../ports/audit-log.js";
import type { ConnectionRepository, KeyRotationReport } from "../ports/connection-repository.js";
import { createCustomersCache, type CacheOutcome } from "./customers-cache.js";
import { createHealthMonitor, type HealthChange, type HealthMonitor } from "./health-monitor.js";
import { createIdentityMemory } from "./identity-memory.js";
import { createHealthStates } from "./health-states.js";
import { listConnectionsHealth } from "../use-cases/list-connections-health.js";
import { EVERY_CONNECTION } from "../ports/connection-changes.js";
import { systemClock } from "../adapters/system-clock.js";
import type { Clock } from "../ports/clock.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import type { Storage } from "../ports/storage.js";
import { addConnection, type AddConnectionOptions, type AddConnectionOutcome } from "../use-cases/add-connection.js";
import { checkApiKey } from "../use-cases/check-api-key.js";
import { applyPlan, planConfiguration, type ApplyOptions, type Plan, type StepResult } from "../use-cases/configuration.js";
import { deleteConnection, type DeleteConnectionOptions } from "../use-cases/delete-connection.js";
import { describeConnection, type ConnectionDetails } from "../use-cases/describe-connection.js";
import { listConnections } from "../use-cases/list-connections.js";
import { listPartnerCustomers } from "../use-cases/list-partner-customers.js";
import { rotateMasterKey } from "../use-cases/rotate-master-key.js";
import { updateConnection, type UpdateConnectionOptions, type UpdateConnectionOutcome } from "../use-cases/update-connection.js";
import { validateConnection, type ValidationResult } from "../use-cases/validate-connection.js";

/** A page of the audit trail. */
export interface AuditPage {
  readonly entries: readonly AuditEntry[];
  /** Pass as `before` for the next page; null when there is none. */
  readonly next: string | null;
}

/** What an entry says of the operation before its outcome is known. */
interface Subject {
  readonly action: AuditAction;
  readonly alias: Alias | null;
  readonly fields: readonly string[];
  readonly forced: boolean;
}

// Only a valid alias is recorded: whatever else was in its place (a pasted secret) is not.
const aliasOrNull = (raw: unknown): Alias | null => E.getOrElseW(() => null)(AliasCodec.decode(raw));

// The names of the known fields a body sets; never their values.
const fieldsGiven = (body: unknown, known: readonly AuditedField[]): readonly AuditedField[] =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? known.filter((field) => Object.hasOwn(body, field)) : [];

const validationOf = (subject: Subject, result: E.Either<DomainError, unknown>): ValidationOutcome => {
  if (subject.forced || subject.action === "delete" || subject.action === "rotate-master-key") return "not-asked";
  if (E.isRight(result)) return "valid";
  return result.left._tag === "ValidationRefused" ? "invalid" : "not-asked";
};

// An update that changed nothing answers `unchanged` (UpdateConnectionOutcome): an attempt, not a change.
const outcomeOf = (result: E.Either<DomainError, unknown>): AuditOutcome =>
  E.isLeft(result) ? "failed" : result.right === "unchanged" ? "unchanged" : "succeeded";

/**
 * A view of `repository` whose writes carry `entry()`, the audit entry of their success, so the store records
 * it with the change; `recorded` tells whether one did.
 */
const carryingEntry = (repository: ConnectionRepository, entry: () => AuditEntry) => {
  let recorded = false;
  const noting =
    <A>(write: TE.TaskEither<DomainError, A>): TE.TaskEither<DomainError, A> =>
    async () => {
      const result = await write();
      recorded ||= E.isRight(result);
      return result;
    };
  const view: ConnectionRepository = {
    ...repository,
    // The entry is made when the write runs, so its time is the change's.
    insert: (connection) => () => noting(repository.insert(connection, entry()))(),
    update: (alias, change, expected) => () => noting(repository.update(alias, change, expected, entry()))(),
    delete: (alias, expected) => () => noting(repository.delete(alias, expected, entry()))(),
    resealKeys: () => () => noting(repository.resealKeys(entry()))(),
  };
  return { view, recorded: () => recorded };
};

interface AuditTrailOptions {
  /** Where entries are listed, and where the trail records what the store does not. */
  readonly audit: AuditLog;
  /** What the audited writes write through: its store keeps `audit` and records a change's entry with the change (the `entry` of its writes). */
  readonly repository: ConnectionRepository;
  /** Told when an attempt's entry could not be recorded (the attempt's answer stands). */
  readonly onFailure?: (error: DomainError) => void;
}

/**
 * Records every write in the audit log once its outcome is known, failed ones included, before the write
 * answers. A change's entry is recorded by the store in the same atomic step as the change, so an answered
 * change always has its entry, visible wherever the change is, and a change that cannot be audited is not
 * made. A refused or failed attempt's entry is recorded after it, and awaited too; one that could not be
 * recorded is reported to `onFailure`, and the attempt's answer stands. Health changes, which answer nobody,
 * are recorded in the background; lists and `settled` wait for them.
 */
const createAuditTrail = ({ audit, repository, onFailure }: AuditTrailOptions) => {
  const recording = new Set<Promise<void>>();
  const recordNow = (entry: AuditEntry): Promise<void> =>
    audit
      .record(entry)()
      .then(
        (recorded) => (E.isLeft(recorded) ? onFailure?.(recorded.left) : undefined),
        () => undefined,
      );
  const recordInBackground = (entry: AuditEntry): void => {
    const done = recordNow(entry).finally(() => recording.delete(done));
    recording.add(done);
  };
  /** Settles once every entry being recorded in the background is recorded (or reported as not). */
  const settled = async (): Promise<void> => {
    await Promise.all(recording);
  };
  const entryOf = (by: Actor | undefined, subject: Subject, result: E.Either<DomainError, unknown>): AuditEntry => {
    const at = new Date();
    return {
      id: auditEntryId(at),
      at,
      actor: by?.name ?? "anonymous",
      requestId: by?.requestId ?? null,
      ...subject,
      validation: validationOf(subject, result),
      outcome: outcomeOf(result),
      failure: E.isLeft(result) ? result.left._tag : null,
      detail: null,
    };
  };
  /** An attempt refused before or without any write (a key that did not match, a role that may not write). */
  const refused = (by: Actor | undefined, subject: Subject, failure: AuditFailure, detail: string | null): Promise<void> =>
    recordNow({ ...entryOf(by, subject, E.right(undefined)), validation: "not-asked", outcome: "failed", failure, detail });
  return {
    ofAdd: (body: unknown, options: { readonly dryRun?: boolean; readonly force?: boolean }): Subject => ({
      action: options.dryRun === true ? "dry-run" : "add",
      alias: aliasOrNull(typeof body === "object" && body !== null ? (body as Record<string, unknown>)["alias"] : undefined),
      fields: fieldsGiven(body, AUDITED_FIELDS),
      forced: options.force === true,
    }),
    ofUpdate: (rawAlias: string, body: unknown, options: { readonly dryRun?: boolean; readonly force?: boolean }): Subject => ({
      action: options.dryRun === true ? "dry-run" : "update",
      alias: aliasOrNull(rawAlias),
      fields: fieldsGiven(body, ["orchestratorUrl", "apiKey"]),
      forced: options.force === true,
    }),
    ofDelete: (rawAlias: string): Subject => ({ action: "delete", alias: aliasOrNull(rawAlias), fields: [], forced: false }),
    ofRotation: (): Subject => ({ action: "rotate-master-key", alias: null, fields: [], forced: false }),

    /**
     * Runs `write` over the repository its use case must write through, and answers once the entry is
     * recorded: a change's by the store, with the change (when the store records them); anything else's here.
     */
    audited:
      <A>(by: Actor | undefined, subject: Subject, write: (through: ConnectionRepository) => TE.TaskEither<DomainError, A>): TE.TaskEither<DomainError, A> =>
      async () => {
        const carried = CHANGE_ACTIONS.has(subject.action) ? carryingEntry(repository, () => entryOf(by, subject, E.right(undefined))) : undefined;
        const result = await write(carried?.view ?? repository)();
        if (carried?.recorded() !== true) await recordNow(entryOf(by, subject, result));
        return result;
      },

    /** A key check that did not match: a refused attempt (a guess at the key), recorded before the answer. */
    keyMismatch: (by: Actor | undefined, rawAlias: string): Promise<void> =>
      refused(by, { action: "key-check", alias: aliasOrNull(rawAlias), fields: ["apiKey"], forced: false }, "KeyMismatch", null),

    /** A write refused to a user who may only read: a refused attempt (its method in `detail`), recorded before the answer. */
    forbidden: (by: Actor | undefined, write: { readonly method: string; readonly alias?: string }): Promise<void> =>
      refused(by, { action: "forbidden", alias: aliasOrNull(write.alias), fields: [], forced: false }, "Forbidden", write.method),

    /** A state change the background health checks found, as the health monitor's. */
    healthChanged: (change: HealthChange): void => {
      const at = change.check.at;
      recordInBackground({
        id: auditEntryId(at),
        at,
        actor: "health-monitor",
        requestId: null,
        action: "health-change",
        alias: aliasOrNull(change.alias),
        fields: [],
        forced: false,
        validation: "not-asked",
        outcome: "succeeded",
        failure: null,
        detail: `${change.from} → ${change.to}${change.check.reason === null ? "" : `: ${change.check.reason}`}`,
      });
    },
    settled,

    /** A page, newest first, and the `before` of the next page (null when this one is the last). */
    list: (query: Readonly<Record<string, unknown>>): TE.TaskEither<DomainError, AuditPage> =>
      pipe(
        TE.fromTask(settled),
        TE.flatMap(() => TE.fromEither(decodeAuditQuery(query))),
        TE.flatMap((decoded) =>
          TE.map((entries: readonly AuditEntry[]) => ({ entries, next: entries.length === decoded.limit ? (entries.at(-1)?.id ?? null) : null }))(audit.list(decoded)),
        ),
      ),
  };
};

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
  updateConnection(rawAlias: string, body: unknown, options?: UpdateConnectionOptions & By): TE.TaskEither<DomainError, UpdateConnectionOutcome>;
  validateConnection(rawAlias: string): TE.TaskEither<DomainError, ValidationResult>;
  /** One connection as stored (version, key date, key fingerprint), without asking the orchestrator. */
  describeConnection(rawAlias: string): TE.TaskEither<DomainError, ConnectionDetails>;
  /** A key that does not match is audited as a refused attempt by `by` (a guess at the key), before the answer. */
  checkApiKey(rawAlias: string, body: unknown, options?: By): TE.TaskEither<DomainError, { readonly matches: boolean }>;
  /** Audits a write refused to `by`, a user who may only read (the driver refuses it; `method` is the request's). */
  recordForbiddenWrite(by: Actor, write: { readonly method: string; readonly alias?: string }): Promise<void>;
  deleteConnection(rawAlias: string, options?: DeleteConnectionOptions & By): TE.TaskEither<DomainError, void>;
  listPartnerCustomers(rawAlias: string): TE.TaskEither<DomainError, CustomerList>;
  rotateMasterKey(options?: By): TE.TaskEither<DomainError, KeyRotationReport>;
  /** What applying a configuration (connections with their keys) would change; see `planConfiguration`. */
  planConfiguration(rawDesired: unknown, options?: { readonly prune?: boolean }): TE.TaskEither<DomainError, Plan>;
  /** Carries out a plan through the audited writes, as `by`; a failed step does not stop the rest. */
  applyPlan(plan: Plan, options?: ApplyOptions & By): Promise<readonly StepResult[]>;
  /** Every connection's health: the last background check's or validation's outcome (`unknown` until one). */
  connectionsHealth(): TE.TaskEither<DomainError, readonly ConnectionHealth[]>;
  /** The periodic checks, when an interval was given: started by whoever runs the service. */
  readonly healthMonitor: HealthMonitor | undefined;
  /** A page of the audit trail, newest first, from a query given as text (`alias`, `since`, `limit`, `before`). */
  listAudit(query: Readonly<Record<string, unknown>>): TE.TaskEither<DomainError, AuditPage>;
  /** Stops listening for changes and waits for the health changes' entries still being recorded; the store belongs to the caller. */
  dispose(): Promise<void>;
}

/**
 * Every use case wired to one store and one orchestrator: an embedding service calls this and gets the same
 * behaviour, audit trail and customers cache included, as the REST service and the CLI.
 */
export const createConnectionService = (options: ConnectionServiceOptions): ConnectionService => {
  const { repository, changes, fingerprints, audit, health: ledger } = options.storage;
  // Every identification (add, update, validate, customers, health) is remembered, for the customers' single round trip.
  const identities = createIdentityMemory();
  const orchestrator = identities.remembering(options.orchestrator);
  const customersCache = createCustomersCache({
    ttlMs: options.customersCacheTtlMs ?? DEFAULT_CUSTOMERS_CACHE_TTL_MS,
    clock: options.clock ?? systemClock,
    ...(options.onCustomersCacheLookup === undefined ? {} : { onLookup: options.onCustomersCacheLookup }),
  });
  const unsubscribe = changes.subscribe((notice) => (notice === EVERY_CONNECTION ? customersCache.clear() : customersCache.drop(notice)));
  const trail = createAuditTrail({
    audit,
    repository,
    ...(options.onAuditFailure === undefined ? {} : { onFailure: options.onAuditFailure }),
  });
  const health = options.health ?? {};
  // A validation's outcome is recorded without telling a change: the caller has its answer, and the trail audits writes and background findings.
  const healthStates = createHealthStates({ ledger, repository, onError: health.onError });
  const monitor =
    health.intervalMs === undefined
      ? undefined
      : createHealthMonitor({
          repository,
          orchestrator,
          ledger,
          intervalMs: health.intervalMs,
          onChange: (change) => {
            trail.healthChanged(change);
            health.onChange?.(change);
          },
          ...(health.onRound === undefined ? {} : { onRound: health.onRound }),
          ...(health.onError === undefined ? {} : { onError: health.onError }),
        });
  // Each audited write's use case writes through the repository the trail gives it (one that carries the entry).
  const add = (through: ConnectionRepository) => addConnection({ repository: through, orchestrator });
  const update = (through: ConnectionRepository) => updateConnection({ repository: through, orchestrator, changes });
  const remove = (through: ConnectionRepository) => deleteConnection({ repository: through, changes, forgetHealth: healthStates.forget });
  const rotate = (through: ConnectionRepository) => rotateMasterKey({ repository: through });
  const addConnectionAudited = (body: unknown, options: AddConnectionOptions & By = {}) =>
    trail.audited(options.by, trail.ofAdd(body, options), (through) => add(through)(body, options));
  const updateConnectionAudited = (rawAlias: string, body: unknown, options: UpdateConnectionOptions & By = {}) =>
    trail.audited(options.by, trail.ofUpdate(rawAlias, body, options), (through) => update(through)(rawAlias, body, options));
  const deleteConnectionAudited = (rawAlias: string, options: DeleteConnectionOptions & By = {}) =>
    trail.audited(options.by, trail.ofDelete(rawAlias), (through) => remove(through)(rawAlias, options));
  const checkKey = checkApiKey({ repository, fingerprints });

  return {
    listConnections: listConnections({ repository }),
    addConnection: addConnectionAudited,
    updateConnection: updateConnectionAudited,
    validateConnection: validateConnection({ repository, orchestrator, fingerprints, recordHealth: healthStates.record }),
    describeConnection: describeConnection({ repository, fingerprints }),
    checkApiKey: (rawAlias: string, body: unknown, options: By = {}) =>
      pipe(
        checkKey(rawAlias, body),
        TE.tap((result) => (result.matches ? TE.right(undefined) : TE.fromTask(() => trail.keyMismatch(options.by, rawAlias)))),
      ),
    recordForbiddenWrite: (by: Actor, write: { readonly method: string; readonly alias?: string }): Promise<void> => trail.forbidden(by, write),
    deleteConnection: deleteConnectionAudited,
    listPartnerCustomers: listPartnerCustomers({ repository, orchestrator, identities, customersCache }),
    rotateMasterKey: (options: By = {}) => trail.audited(options.by, trail.ofRotation(), (through) => rotate(through)()),
    planConfiguration: planConfiguration({ repository, fingerprints }),
    applyPlan: (plan: Plan, options: ApplyOptions & By = {}) => {
      const by = options.by === undefined ? {} : { by: options.by };
      return applyPlan({
        add: (body, force) => addConnectionAudited(body, { force, ...by }),
        update: (alias, change, force) => updateConnectionAudited(alias, change, { force, ...by }),
        remove: (alias) => deleteConnectionAudited(alias, by),
      })(plan, options);
    },
    connectionsHealth: listConnectionsHealth({ repository, ledger }),
    healthMonitor: monitor,
    listAudit: trail.list,
    dispose: async (): Promise<void> => {
      unsubscribe();
      await monitor?.stop();
      await trail.settled();
    },
  };
};
