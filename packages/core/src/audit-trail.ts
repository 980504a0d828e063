import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { auditEntryId, decodeAuditQuery, type Actor, type AuditAction, type AuditEntry, type ValidationOutcome } from "./domain/audit.js";
import { AliasCodec, type Alias } from "./domain/codecs.js";
import type { DomainError } from "./domain/errors.js";
import type { HealthChange } from "./health-monitor.js";
import type { AuditLog } from "./ports/audit-log.js";

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
const fieldsGiven = (body: unknown, known: readonly string[]): readonly string[] =>
  typeof body === "object" && body !== null && !Array.isArray(body) ? known.filter((field) => Object.hasOwn(body, field)) : [];

const validationOf = (subject: Subject, result: E.Either<DomainError, unknown>): ValidationOutcome => {
  if (subject.forced || subject.action === "delete" || subject.action === "rotate-master-key") return "not-asked";
  if (E.isRight(result)) return "valid";
  return result.left._tag === "ValidationRefused" ? "invalid" : "not-asked";
};

/**
 * Records every write in the audit log once its outcome is known, failed ones included. The write answers
 * without waiting for its entry (a durable store's append would add its own fsync to every write's
 * latency); lists and `settled` wait for every entry still being recorded. A write's result never depends
 * on its entry: one that could not be recorded is reported to `onFailure`.
 */
export const createAuditTrail = ({ audit, onFailure }: { readonly audit: AuditLog; readonly onFailure?: (error: DomainError) => void }) => {
  const recording = new Set<Promise<void>>();
  const record = (entry: AuditEntry): void => {
    const done = audit
      .record(entry)()
      .then(
        (recorded) => (E.isLeft(recorded) ? onFailure?.(recorded.left) : undefined),
        () => undefined,
      )
      .finally(() => recording.delete(done));
    recording.add(done);
  };
  /** Settles once every entry of a write that has answered is recorded (or reported as not). */
  const settled = async (): Promise<void> => {
    await Promise.all(recording);
  };
  return {
    ofAdd: (body: unknown, options: { readonly dryRun?: boolean; readonly force?: boolean }): Subject => ({
      action: options.dryRun === true ? "dry-run" : "add",
      alias: aliasOrNull(typeof body === "object" && body !== null ? (body as Record<string, unknown>)["alias"] : undefined),
      fields: fieldsGiven(body, ["alias", "orchestratorUrl", "apiKey"]),
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

    audited:
      <A>(by: Actor | undefined, subject: Subject, write: TE.TaskEither<DomainError, A>): TE.TaskEither<DomainError, A> =>
      async () => {
        const result = await write();
        const at = new Date();
        const entry: AuditEntry = {
          id: auditEntryId(at),
          at,
          actor: by?.name ?? "anonymous",
          requestId: by?.requestId ?? null,
          ...subject,
          validation: validationOf(subject, result),
          outcome: E.isRight(result) ? "succeeded" : "failed",
          failure: E.isLeft(result) ? result.left._tag : null,
          detail: null,
        };
        record(entry);
        return result;
      },

    /** A state change the background health checks found, as the health monitor's. */
    healthChanged: (change: HealthChange): void => {
      const at = change.check.at;
      record({
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
