import { appendFile, open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import {
  AuditEntryProps,
  DEFAULT_AUDIT_RETENTION,
  IsoTimeCodec,
  retainedAuditEntries,
  selectAuditPage,
  storageFailure,
  toFieldErrors,
  type AuditEntry,
  type AuditLog,
  type AuditRetention,
  type DomainError,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { createGroupCommit, createSerialQueue } from "./group-commit.js";
import { createFileLock } from "./lock.js";

/** Name of the audit trail's file inside the data directory: one JSON entry per line, oldest first. */
export const AUDIT_FILE = "audit.jsonl";

// Appends between two rewrites that drop what the retention no longer keeps (lists leave it out before).
const APPENDS_PER_PRUNE = 500;

const AuditLine = t.type({ ...AuditEntryProps, at: IsoTimeCodec, requestId: t.union([t.string, t.null]) });

const line = (entry: AuditEntry): string => `${JSON.stringify(AuditLine.encode(entry as t.TypeOf<typeof AuditLine>))}\n`;

// Every complete line, decoded; a last line without its newline is an append cut short by a crash, and is skipped.
const parse = (text: string, path: string): E.Either<DomainError, AuditEntry[]> => {
  const lines = text.split("\n").slice(0, -1);
  const entries: AuditEntry[] = [];
  for (const [index, raw] of lines.entries()) {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return E.left(storageFailure(`Storage failure: line ${index + 1} of ${path} is not JSON.`));
    }
    const decoded = AuditLine.decode(json);
    if (E.isLeft(decoded)) {
      const fields = toFieldErrors(decoded.left, "entry").map((error) => `${error.field} ${error.message}`);
      return E.left(storageFailure(`Storage failure: line ${index + 1} of ${path} is not an audit entry (${fields.join("; ")}).`));
    }
    entries.push(decoded.right as AuditEntry);
  }
  return E.right(entries);
};

/**
 * Appends entries to the audit trail, durably (fdatasync), before answering: what the connections file's
 * group commit calls to record its changes' entries with them.
 */
export interface AuditJournal {
  append(entries: readonly AuditEntry[]): TaskEither<DomainError, void>;
}

export interface LowdbAuditLogOptions {
  /** The data directory, as for `openConnectionsFile`. */
  readonly dataDir: string;
  readonly retention?: AuditRetention;
  /** As `openConnectionsFile`'s: after how long a dead process's lock is taken over (ms). */
  readonly lockStaleMs?: number;
}

/**
 * The audit trail in `audit.jsonl` beside `connections.json`: each entry one
 * line, appended and fdatasync'ed before `record` answers, under a lock shared
 * with every process using the data directory (so the occasional rewrite
 * that prunes old entries loses none appended meanwhile). Entries recorded
 * while an append runs go together in the next one. Lists read the file.
 * `journal` is for the connections file (`openConnectionsFile`'s `audit`):
 * its group commit appends its changes' entries through it.
 */
export const createLowdbAuditLog = ({
  dataDir,
  retention = DEFAULT_AUDIT_RETENTION,
  lockStaleMs = 10_000,
}: LowdbAuditLogOptions): AuditLog & { readonly journal: AuditJournal; close(): Promise<void> } => {
  const path = join(dataDir, AUDIT_FILE);
  const lock = createFileLock(path, lockStaleMs);
  let appends = 0;

  const read: TaskEither<DomainError, AuditEntry[]> = async () => {
    const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? "" : Promise.reject(error)));
    return parse(text, AUDIT_FILE);
  };

  const prune = async (): Promise<void> => {
    const entries = await read();
    if (E.isLeft(entries)) return; // a damaged file is reported by lists, never rewritten
    const kept = retainedAuditEntries(entries.right, retention);
    if (kept.length === entries.right.length) return;
    const temporary = `${path}.${process.pid}.tmp`;
    const handle = await open(temporary, "w", 0o600);
    try {
      await handle.writeFile([...kept].reverse().map(line).join(""));
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  };

  const failure = (what: string) => (error: unknown) => E.left(storageFailure(`Storage failure while ${what} the audit trail: ${error instanceof Error ? error.message : String(error)}.`));

  const append =
    (batch: readonly AuditEntry[]): TaskEither<DomainError, void> =>
    async () => {
      const done = await lock.run(async () => {
        const handle = await open(path, "a", 0o600);
        try {
          await appendFile(handle, batch.map(line).join(""));
          await handle.datasync();
        } finally {
          await handle.close();
        }
        // At the first append, then once per APPENDS_PER_PRUNE entries.
        if (appends === 0 || Math.floor((appends + batch.length) / APPENDS_PER_PRUNE) > Math.floor(appends / APPENDS_PER_PRUNE)) await prune();
        appends += batch.length;
      })();
      return E.isLeft(done) ? failure("writing")(done.left) : E.right(undefined);
    };
  // Appends of this process, its own and the connections file's, run one at a time (never contending for the lock).
  const serially = createSerialQueue();
  const groupCommit = createGroupCommit<AuditEntry>(serially, async (batch) => {
    const result = await append(batch)().catch(failure("writing"));
    return batch.map(() => result);
  });

  return {
    record: (entry) => groupCommit.submit<void>(entry),
    journal: { append: (entries) => () => serially(append(entries)).catch(failure("writing")) },
    list: (query) => () =>
      read().then(
        (entries) => E.map((all: AuditEntry[]) => selectAuditPage(all, query, retention))(entries),
        failure("reading"),
      ),
    close: async () => {
      await groupCommit.drain();
      await lock.close();
    },
  };
};
