import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import {
  AUDITED_FIELDS,
  CHANGE_ACTIONS,
  auditEntryId,
  decodeAuditQuery,
  healthChangeDetail,
  type Actor,
  type AuditedField,
  type AuditAction,
  type AuditEntry,
  type AuditFailure,
  type AuditOutcome,
  type AuditQuery,
  type ValidationOutcome,
} from "../domain/audit.js";
import { AliasCodec, type Alias } from "../domain/codecs.js";
import type { DomainError } from "../domain/errors.js";
import { describeGrant, type Grant } from "../domain/grants.js";
import { webhookAuditDetail, type Webhook } from "../domain/webhook.js";
import { CHANGEABLE_FIELDS } from "../domain/requests.js";
import type { AuditLog } from "../ports/audit-log.js";
import type { AuditPage } from "../wire/audit.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { HealthChange } from "./health-states.js";
import type { WarnedConnection } from "./key-expiry-watch.js";
import { keyRenewalDetail, RENEWAL_ACTOR, type KeyRenewalDetail } from "../domain/key-renewal.js";

/** A service token's change (SPEC §11), audited as a change to no connection. */
export type TokenChange = "token-create" | "token-renew" | "token-revoke";
/** A webhook's change (SPEC §9), audited as a change to no connection. */
export type WebhookChange = "webhook-create" | "webhook-delete" | "webhook-disable";

/** What the trail says of a service token: never its secret. */
export interface AuditedToken {
  readonly name: string;
  readonly role: string | null;
}

// A page of the audit trail (`next`: pass as `before` for the next page) is the wire's.
export type { AuditPage };

/** What an entry says of the operation before its outcome is known. */
interface Subject {
  readonly action: AuditAction;
  readonly alias: Alias | null;
  readonly fields: readonly AuditedField[];
  readonly forced: boolean;
}

// Only a valid alias is recorded: whatever else was in its place (a pasted secret) is not.
const aliasOrNull = (raw: unknown): Alias | null => E.getOrElseW(() => null)(AliasCodec.decode(raw));

// The names of the known fields a body sets; never their values.
const fieldsGiven = (body: unknown, known: readonly AuditedField[]): readonly AuditedField[] =>
  typeof body === "object" && body !== null && !Array.isArray(body)
    ? known.filter((field) => Object.hasOwn(body, field))
    : [];

const validationOf = (subject: Subject, result: E.Either<DomainError, unknown>): ValidationOutcome => {
  if (subject.forced || subject.action === "delete" || subject.action === "rotate-master-key") return "not-asked";
  if (E.isRight(result)) return "valid";
  // Invalid only when the orchestrator answered that it refuses the key; one that could not be asked (unreachable, timed
  // out, rate-limited, an answer that is none) said nothing about it.
  return result.left._tag === "ValidationRefused" && result.left.cause._tag === "OrchestratorRejected"
    ? "invalid"
    : "not-asked";
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

// Entries read from the store at a time while a page of readable entries fills.
const READABLE_PAGE_READ = 500;

/** `query`'s page of the entries `visible` keeps: store pages read newest first until `limit` of them, or the end. */
const readablePage =
  (
    audit: AuditLog,
    query: AuditQuery,
    visible: (entry: AuditEntry) => boolean,
  ): TE.TaskEither<DomainError, AuditPage> =>
  async () => {
    const entries: AuditEntry[] = [];
    const read = Math.max(query.limit, READABLE_PAGE_READ);
    for (let before = query.before; ;) {
      const page = await audit.list({ ...query, limit: read, ...(before === undefined ? {} : { before }) })();
      if (E.isLeft(page)) return page;
      for (const entry of page.right) {
        if (!visible(entry)) continue;
        entries.push(entry);
        if (entries.length === query.limit) return E.right({ entries, next: entry.id });
      }
      const last = page.right.at(-1);
      if (last === undefined || page.right.length < read) return E.right({ entries, next: null });
      before = last.id;
    }
  };

interface AuditTrailOptions {
  /** Where entries are listed, and where the trail records what the store does not. */
  readonly audit: AuditLog;
  /** What the audited writes write through: its store keeps `audit` and records a change's entry with the change (the `entry` of its writes). */
  readonly repository: ConnectionRepository;
  /** Told when an attempt's entry could not be recorded (the attempt's answer stands). */
  readonly onFailure?: ((error: DomainError) => void) | undefined;
}

/**
 * Records every write in the audit log once its outcome is known, failed ones included, before the write
 * answers. A change's entry is recorded by the store in the same atomic step as the change, so an answered
 * change always has its entry, visible wherever the change is, and a change that cannot be audited is not
 * made. A refused or failed attempt's entry is recorded after it, and awaited too; one that could not be
 * recorded is reported to `onFailure`, and the attempt's answer stands. Health changes, which answer nobody,
 * are recorded in the background; lists and `settled` wait for them.
 */
export const createAuditTrail = ({ audit, repository, onFailure }: AuditTrailOptions) => {
  const recording = new Set<Promise<void>>();
  const recordNow = (entry: AuditEntry): Promise<void> =>
    audit
      .record(entry)()
      .then(
        (recorded) => (E.isLeft(recorded) ? onFailure?.(recorded.left) : undefined),
        () => undefined,
      );
  // Answers when recorded, for a caller that waits (a validation); lists and `settled` wait for it either way.
  const recordInBackground = (entry: AuditEntry): Promise<void> => {
    const done = recordNow(entry).finally(() => recording.delete(done));
    recording.add(done);
    return done;
  };
  /** Settles once every entry being recorded in the background is recorded (or reported as not). */
  const settled = async (): Promise<void> => {
    await Promise.all(recording);
  };
  // `at`: the time of what the entry tells (now, unless it happened before: a check's, a warning's).
  const entryOf = (
    by: Actor | undefined,
    subject: Subject,
    result: E.Either<DomainError, unknown>,
    at = new Date(),
  ): AuditEntry => ({
    id: auditEntryId(at),
    at,
    actor: by?.name ?? "anonymous",
    requestId: by?.requestId ?? null,
    ...subject,
    validation: validationOf(subject, result),
    outcome: outcomeOf(result),
    failure: E.isLeft(result) ? result.left._tag : null,
    detail: null,
  });
  /** An attempt refused before or without any write (a key that did not match, a role that may not write). */
  const refused = (
    by: Actor | undefined,
    subject: Subject,
    failure: AuditFailure,
    detail: string | null,
  ): Promise<void> =>
    recordNow({
      ...entryOf(by, subject, E.right(undefined)),
      validation: "not-asked",
      outcome: "failed",
      failure,
      detail,
    });
  // A change to no connection (a grant, a service token), recorded before its answer.
  const changeOfNoConnection = (by: Actor | undefined, action: AuditAction, detail: string): Promise<void> =>
    recordNow({
      ...entryOf(by, { action, alias: null, fields: [], forced: false }, E.right(undefined)),
      validation: "not-asked",
      detail,
    });

  return {
    ofAdd: (body: unknown, options: { readonly dryRun?: boolean; readonly force?: boolean }): Subject => ({
      action: options.dryRun === true ? "dry-run" : "add",
      alias: aliasOrNull(
        typeof body === "object" && body !== null ? (body as Record<string, unknown>)["alias"] : undefined,
      ),
      fields: fieldsGiven(body, AUDITED_FIELDS),
      forced: options.force === true,
    }),
    ofUpdate: (
      rawAlias: string,
      body: unknown,
      options: { readonly dryRun?: boolean; readonly force?: boolean },
    ): Subject => ({
      action: options.dryRun === true ? "dry-run" : "update",
      alias: aliasOrNull(rawAlias),
      fields: fieldsGiven(body, CHANGEABLE_FIELDS),
      forced: options.force === true,
    }),
    ofDelete: (rawAlias: string): Subject => ({
      action: "delete",
      alias: aliasOrNull(rawAlias),
      fields: [],
      forced: false,
    }),
    ofRotation: (): Subject => ({ action: "rotate-master-key", alias: null, fields: [], forced: false }),

    /**
     * Runs `write` over the repository its use case must write through, and answers once the entry is
     * recorded: a change's by the store, with the change (when the store records them); anything else's here.
     */
    audited:
      <A>(
        by: Actor | undefined,
        subject: Subject,
        write: (through: ConnectionRepository) => TE.TaskEither<DomainError, A>,
      ): TE.TaskEither<DomainError, A> =>
      async () => {
        const carried = CHANGE_ACTIONS.has(subject.action)
          ? carryingEntry(repository, () => entryOf(by, subject, E.right(undefined)))
          : undefined;
        const result = await write(carried?.view ?? repository)();
        if (carried?.recorded() !== true) await recordNow(entryOf(by, subject, result));
        return result;
      },

    /** A key check that did not match: a refused attempt (a guess at the key), recorded before the answer. */
    keyMismatch: (by: Actor | undefined, rawAlias: string): Promise<void> =>
      refused(
        by,
        { action: "key-check", alias: aliasOrNull(rawAlias), fields: ["apiKey"], forced: false },
        "KeyMismatch",
        null,
      ),

    /** A write refused to a user who may only read: a refused attempt (its method in `detail`), recorded before the answer. */
    forbidden: (by: Actor | undefined, write: { readonly method: string; readonly alias?: string }): Promise<void> =>
      refused(
        by,
        { action: "forbidden", alias: aliasOrNull(write.alias), fields: [], forced: false },
        "Forbidden",
        write.method,
      ),

    /**
     * A state change a check found: the background health checks' (by `health-monitor`) or a validation's (by
     * `validation`, which waits for it: answered, its entry is listed by every instance). Never fails.
     */
    healthChanged: (
      { alias, orchestratorUrl, from, to, check }: HealthChange,
      by: "health-monitor" | "validation" = "health-monitor",
    ): Promise<void> => {
      const subject: Subject = { action: "health-change", alias: aliasOrNull(alias), fields: [], forced: false };
      const detail = healthChangeDetail({ from, to, reason: check.reason });
      return recordInBackground({
        ...entryOf({ name: by }, subject, E.right(undefined), check.at),
        validation: "not-asked",
        detail,
        orchestratorUrl,
      });
    },
    /** A grant added or removed by `by`: a change, recorded before the answer, the grant in `detail`. */
    grantChanged: (by: Actor | undefined, action: "grant-add" | "grant-remove", grant: Grant): Promise<void> =>
      changeOfNoConnection(by, action, describeGrant(grant)),
    /** A service token created, renewed or revoked by `by`: a change, recorded before the answer, its name and role in `detail` (never its secret). */
    tokenChanged: (by: Actor | undefined, action: TokenChange, token: AuditedToken): Promise<void> =>
      changeOfNoConnection(by, action, `token:${token.name} ${token.role ?? "no-role"}`),
    /** A webhook delivery sent again by `by` (a new attempt of its event): recorded before the answer. */
    webhookRedelivered: (
      by: Actor | undefined,
      redelivered: { readonly webhookId: string; readonly deliveryId: string; readonly eventId: string },
    ): Promise<void> =>
      recordNow({
        ...entryOf(by, { action: "webhook-redeliver", alias: null, fields: [], forced: false }, E.right(undefined)),
        validation: "not-asked",
        detail: `webhook ${redelivered.webhookId} delivery ${redelivered.deliveryId} event ${redelivered.eventId}`,
      }),
    /** A webhook created, deleted or disabled by `by`: a change, recorded before the answer (never its secret nor credentials). */
    webhookChanged: (by: Actor | undefined, action: WebhookChange, webhook: Webhook): Promise<void> =>
      changeOfNoConnection(by, action, webhookAuditDetail(webhook)),
    /** A key nearing (`key-expiring`) or past (`key-expired`) its expiry, as the key-expiry watch found it. */
    keyExpiryWarned: (
      { alias, orchestratorUrl }: WarnedConnection,
      action: "key-expiring" | "key-expired",
      detail: string,
      at: Date,
    ): void => {
      const subject: Subject = { action, alias, fields: [], forced: false };
      recordInBackground({
        ...entryOf({ name: "key-expiry" }, subject, E.right(undefined), at),
        validation: "not-asked",
        detail,
        orchestratorUrl,
      });
    },
    /** The entry of a key renewed by the service (SPEC §12), for the store to record with the swap: a change by `renewal`. */
    keyRenewedEntry: ({ alias }: Pick<WarnedConnection, "alias">, detail: KeyRenewalDetail): AuditEntry => ({
      ...entryOf(
        { name: RENEWAL_ACTOR },
        { action: "key-renew", alias, fields: ["apiKey"], forced: false },
        E.right(1),
      ),
      detail: keyRenewalDetail(detail),
    }),
    /** A renewal that could not be done (SPEC §12): an attempt, its reason in `detail`. */
    keyRenewalFailed: ({ alias, orchestratorUrl }: WarnedConnection, reason: string, at: Date): void => {
      const subject: Subject = { action: "key-renewal-failed", alias, fields: [], forced: false };
      recordInBackground({
        ...entryOf({ name: RENEWAL_ACTOR }, subject, E.right(undefined), at),
        validation: "not-asked",
        outcome: "failed",
        failure: "RenewalFailed",
        detail: reason,
        orchestratorUrl,
      });
    },
    /** A service token nearing (`token-expiring`) or past (`token-expired`) its expiry, as the key-expiry watch found it. */
    tokenExpiryWarned: (action: "token-expiring" | "token-expired", detail: string, at: Date): void => {
      recordInBackground({
        ...entryOf({ name: "key-expiry" }, { action, alias: null, fields: [], forced: false }, E.right(undefined), at),
        validation: "not-asked",
        detail,
      });
    },
    settled,

    /**
     * A page, newest first, and the `before` of the next page (null when this one is the last). With `readable`
     * (a principal that may read only some connections, SPEC §11), the page holds only entries of connections it
     * reads, read from the store until `limit` of them or the end, and its cursor is the last of those: neither
     * the page nor the cursor tells a hidden entry from none (issue 36). An `alias` it may not read is an empty
     * last page, asked of no store, as an alias never used is.
     */
    list: (
      query: Readonly<Record<string, unknown>>,
      readable?: (alias: string) => boolean,
    ): TE.TaskEither<DomainError, AuditPage> =>
      pipe(
        TE.fromTask(settled),
        TE.flatMap(() => TE.fromEither(decodeAuditQuery(query))),
        TE.flatMap((decoded) =>
          readable === undefined
            ? TE.map((entries: readonly AuditEntry[]) => ({
                entries,
                next: entries.length === decoded.limit ? (entries.at(-1)?.id ?? null) : null,
              }))(audit.list(decoded))
            : decoded.alias !== undefined && !readable(decoded.alias)
              ? TE.right({ entries: [], next: null })
              : readablePage(audit, decoded, ({ alias }) => alias !== null && readable(alias)),
        ),
      ),
  };
};
