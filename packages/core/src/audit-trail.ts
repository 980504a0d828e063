import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { auditEntryId, decodeAuditQuery, type Actor, type AuditAction, type AuditEntry, type ValidationOutcome } from "./domain/audit.js";
import { AliasCodec, type Alias } from "./domain/codecs.js";
import type { DomainError } from "./domain/errors.js";
import type { AuditLog } from "./ports/audit-log.js";

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
 * Records every write in the audit log once its outcome is known, failed ones included. A write's result
 * never depends on its entry: one that could not be recorded is reported to `onFailure`.
 */
export const createAuditTrail = ({ audit, onFailure }: { readonly audit: AuditLog; readonly onFailure?: (error: DomainError) => void }) => ({
  ofAdd: (body: unknown, options: { readonly dryRun?: boolean; readonly force?: boolean }): Subject => ({
    action: options.dryRun === true ? "dry-run" : "add",
    alias: aliasOrNull(typeof body === "object" && body !== null ? (body as Record<string, unknown>)["alias"] : undefined),
    fields: fieldsGiven(body, ["alias", "orchestratorUrl", "apiKey"]),
    forced: options.force === true,
  }),
  ofUpdate: (rawAlias: string, body: unknown, options: { readonly force?: boolean }): Subject => ({
    action: "update",
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
      };
      const recorded = await audit.record(entry)();
      if (E.isLeft(recorded)) onFailure?.(recorded.left);
      return result;
    },

  list: (query: Readonly<Record<string, unknown>>) => pipe(TE.fromEither(decodeAuditQuery(query)), TE.flatMap(audit.list)),
});
