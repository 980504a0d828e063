import { open, readFile, rename, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import {
  AuditEntryProps,
  DEFAULT_AUDIT_RETENTION,
  IsoTimeCodec,
  retainedAuditEntries,
  selectAuditPage,
  storageFailure,
  type AuditEntry,
  type AuditLog,
  type AuditRetention,
  type DomainError,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { CONNECTIONS_FILE } from "./file-format.js";
import { errorCode } from "./errors.js";
import { createGroupCommit, createSerialQueue } from "./group-commit.js";
import { createFileLock } from "./lock.js";

/** Name of the audit trail's file inside the data directory: one JSON entry per line, oldest first. */
export const AUDIT_FILE = "audit.jsonl";

// Appends between two rewrites that drop what the retention no longer keeps (lists leave it out before).
const APPENDS_PER_PRUNE = 500;

// Exact: a change's entry also carries `commit` (see AuditJournal), which lists do not show.
const AuditLine = t.exact(t.type({ ...AuditEntryProps, at: IsoTimeCodec, requestId: t.union([t.string, t.null]) }));
const CommitMark = t.type({ commit: t.number });

const line = (entry: AuditEntry, commit?: number): string =>
  `${JSON.stringify({ ...AuditLine.encode(entry as t.TypeOf<typeof AuditLine>), ...(commit === undefined ? {} : { commit }) })}\n`;

const decodeLine = (raw: string): E.Either<unknown, unknown> => E.tryCatch(() => JSON.parse(raw) as unknown, (error) => error);

/** The trail as read: its entries, and the numbers of the lines that are not one (never their content: it may be anything). */
interface ReadTrail {
  readonly entries: AuditEntry[];
  readonly damaged: number[];
}

// Every complete line, decoded; a last line without its newline is an append under way or cut short, and is skipped.
const parse = (text: string): ReadTrail => {
  const trail: ReadTrail = { entries: [], damaged: [] };
  for (const [index, raw] of text.split("\n").slice(0, -1).entries()) {
    const decoded = E.flatMap((json: unknown) => AuditLine.decode(json))(decodeLine(raw));
    if (E.isLeft(decoded)) trail.damaged.push(index + 1);
    else trail.entries.push(decoded.right as AuditEntry);
  }
  return trail;
};

/**
 * The store version connections.json holds now (its `lastVersion`, 0 without a file): read from the header
 * the file format writes first, the whole file only when the header is not the usual one.
 */
const committedVersionIn = (dataDir: string) => async (): Promise<number> => {
  const path = join(dataDir, CONNECTIONS_FILE);
  const handle = await open(path, "r").catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? undefined : Promise.reject(error)));
  if (handle === undefined) return 0;
  try {
    const head = Buffer.alloc(256);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const found = /^\{"format":"[^"]*","version":\d+,"lastVersion":(\d+),/.exec(head.toString("utf8", 0, bytesRead));
    if (found !== null) return Number(found[1]);
    const whole = decodeLine(await handle.readFile("utf8"));
    const lastVersion = E.isRight(whole) ? (whole.right as { lastVersion?: unknown } | null)?.lastVersion : undefined;
    return typeof lastVersion === "number" ? lastVersion : 0;
  } finally {
    await handle.close();
  }
};

/**
 * Where the sound part of the trail ends, seen from its last `window` bytes (undefined: look further back): at
 * its last newline (after it, an append cut short), and before the lines that end it and record a change
 * that never reached connections.json (their `commit` above the version it holds).
 */
const soundEndIn = async (tail: Buffer, from: number, committedVersion: () => Promise<number>): Promise<number | undefined> => {
  let end = tail.lastIndexOf(0x0a) + 1;
  let committed: number | undefined;
  for (;;) {
    if (end === 0) return from === 0 ? 0 : undefined;
    const start = tail.lastIndexOf(0x0a, end - 2) + 1;
    if (start === 0 && from > 0) return undefined;
    const mark = E.flatMap((json: unknown) => CommitMark.decode(json))(decodeLine(tail.toString("utf8", start, end - 1)));
    if (E.isLeft(mark)) return from + end;
    committed ??= await committedVersion();
    if (mark.right.commit <= committed) return from + end;
    end = start;
  }
};

/**
 * What the connections file's group commit records its changes' entries through. A change's entry is written
 * ahead of the change and tagged with the store version the change gives (`commit`, connections.json's
 * `lastVersion` once it lands; each change raises it): it tells, from the two files alone, an entry whose
 * change landed from one whose change never did. The trail stays locked from the append until the change has
 * landed or failed; then an entry whose change did not land (connections.json below its version) is cut off
 * again, under the lock. One that a crash left there (the writer died between the two files) is cut off by
 * the next writer of the trail, which looks at its end under the lock before it appends, and by the next
 * change, before it raises the version. So the trail never keeps a "succeeded" change that did not happen,
 * and an acknowledged change (answered after the rename is durable) always keeps its entry: its version is
 * on disk. Written after the change instead, an entry could fail to be written (a full disk) for a change
 * that already happened and cannot be undone there; truncating is what a full disk still allows.
 */
export interface AuditJournal {
  /**
   * Appends `entries` tagged with `version`, durably (Right once they are), then holds the trail until
   * `settled` settles, and keeps them only if connections.json then holds `version`. With no entries, only
   * the look at the trail's end.
   */
  append(entries: readonly AuditEntry[], version: number, settled: Promise<unknown>): TaskEither<DomainError, void>;
  /**
   * Right while the trail can be appended to: after a failed append, Left until an append succeeds, or this
   * check's own test append (a block written at the end, synced and cut off again) does.
   */
  ready(): TaskEither<DomainError, void>;
}

export interface LowdbAuditLogOptions {
  /** The data directory, as for `openConnectionsFile`. */
  readonly dataDir: string;
  readonly retention?: AuditRetention;
  /** As `openConnectionsFile`'s: after how long a dead process's lock is taken over (ms). */
  readonly lockStaleMs?: number;
  /** Told, once per change of what it found, of lines of the file that are not audit entries (skipped): a line safe to log. */
  readonly onWarning?: (message: string) => void;
}

// ready()'s test append: one block, spaces (never a line of its own should it stay: the next append cuts it off).
const TEST_APPEND = " ".repeat(4096);

/**
 * The audit trail in `audit.jsonl` beside `connections.json`: each entry one
 * line, appended and fdatasync'ed before `record` answers, under a lock shared
 * with every process using the data directory (so the occasional rewrite
 * that prunes old entries loses none appended meanwhile). Every append starts
 * on a line boundary: what an append cut short left after the last newline
 * (a full disk, a crash) is cut off first, and after a failed append at once.
 * A line that is not an entry is skipped by lists and reported (`onWarning`),
 * never a reason to refuse the trail or to stop pruning (the rewrite drops it).
 * Entries recorded while an append runs go together in the next one. Lists
 * read the file. `journal` is for the connections file
 * (`openConnectionsFile`'s `audit`): its group commit appends its changes'
 * entries through it.
 */
export const createLowdbAuditLog = ({
  dataDir,
  retention = DEFAULT_AUDIT_RETENTION,
  lockStaleMs = 10_000,
  onWarning,
}: LowdbAuditLogOptions): AuditLog & {
  readonly journal: AuditJournal;
  /** Makes the file's end sound now (at a start); a failure is left to `journal.ready` to report. */
  repair(): Promise<void>;
  close(): Promise<void>;
} => {
  const path = join(dataDir, AUDIT_FILE);
  const lock = createFileLock(path, lockStaleMs);
  const committedVersion = committedVersionIn(dataDir);
  let appends = 0;
  // The last append's failure (an errno code), until one succeeds: what `ready` answers.
  let failing: string | undefined;
  // Where this process left the file (its inode and size): a file still so needs no look at its end.
  let leftAt: { readonly ino: number; readonly size: number } | undefined;
  let reported = "";

  const read = async (): Promise<AuditEntry[]> => {
    const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? "" : Promise.reject(error)));
    const { entries, damaged } = parse(text);
    const found = damaged.length === 0 ? "" : `${AUDIT_FILE}: ${damaged.length} damaged line(s) skipped (line ${damaged.slice(0, 20).join(", ")}${damaged.length > 20 ? ", …" : ""}); the next rewrite drops them.`;
    if (found !== reported) {
      reported = found;
      if (found !== "") onWarning?.(found);
    }
    return entries;
  };

  const prune = async (): Promise<void> => {
    const entries = await read();
    const kept = retainedAuditEntries(entries, retention);
    if (kept.length === entries.length) return;
    const temporary = `${path}.${process.pid}.tmp`;
    const handle = await open(temporary, "w", 0o600);
    try {
      await handle.writeFile([...kept].reverse().map((entry) => line(entry)).join(""));
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    leftAt = undefined;
  };

  /** Under the lock: cuts the file back to `size`, durably. */
  const cutBack = async (handle: FileHandle, size: number): Promise<void> => {
    await handle.truncate(size);
    await handle.datasync();
  };

  /** Where the file's sound part ends (see soundEndIn). */
  const soundEnd = async (handle: FileHandle, size: number): Promise<number> => {
    for (let window = 65_536; ; window *= 2) {
      const from = Math.max(0, size - window);
      const tail = Buffer.alloc(size - from);
      await handle.read(tail, 0, tail.length, from);
      const end = await soundEndIn(tail, from, committedVersion);
      if (end !== undefined) return end;
    }
  };

  /** Under the lock: makes the file's end sound; answers its size. */
  const repairEnd = async (handle: FileHandle): Promise<number> => {
    const { ino, size } = await handle.stat();
    if (leftAt?.ino === ino && leftAt.size === size) return size;
    const end = await soundEnd(handle, size);
    if (end < size) await cutBack(handle, end);
    leftAt = { ino, size: end };
    return end;
  };

  /**
   * Under the lock: appends `text` at a sound end, durably, and answers where it started; a failed append is
   * cut back there at once (a partial line never stays for the next append to join).
   */
  const appendSoundly = async (handle: FileHandle, text: string): Promise<number> => {
    const start = await repairEnd(handle);
    if (text === "") return start;
    leftAt = undefined;
    try {
      await handle.appendFile(text);
      await handle.datasync();
    } catch (error) {
      failing = errorCode(error);
      await cutBack(handle, start).catch(() => undefined);
      throw error;
    }
    failing = undefined;
    leftAt = { ino: (await handle.stat()).ino, size: start + Buffer.byteLength(text) };
    return start;
  };

  /** Runs `work` on the opened file, under the lock (in `serially`: this process's appends never contend for it). */
  const locked = async <A>(work: (handle: FileHandle) => Promise<A>): Promise<A> => {
    const done = await lock.run(async () => {
      const handle = await open(path, "a+", 0o600);
      try {
        return await work(handle);
      } finally {
        await handle.close();
      }
    })().catch((error: unknown) => E.left(errorCode(error)));
    if (E.isRight(done)) return done.right;
    failing ??= done.left;
    throw new Error(done.left);
  };

  const pruneSometimes = async (count: number): Promise<void> => {
    // At the first append, then once per APPENDS_PER_PRUNE entries.
    if (appends === 0 || Math.floor((appends + count) / APPENDS_PER_PRUNE) > Math.floor(appends / APPENDS_PER_PRUNE)) await prune();
    appends += count;
  };

  const failure = (what: string) => (error: unknown) => E.left(storageFailure(`Storage failure while ${what} the audit trail: ${error instanceof Error ? error.message : String(error)}.`));

  // Appends of this process, its own and the connections file's, run one at a time (never contending for the lock).
  const serially = createSerialQueue();
  const groupCommit = createGroupCommit<AuditEntry>(serially, async (batch) => {
    const result = await locked(async (handle) => {
      await appendSoundly(handle, batch.map((entry) => line(entry)).join(""));
      await pruneSometimes(batch.length);
    }).then(() => E.right(undefined), failure("writing"));
    return batch.map(() => result);
  });

  const journal: AuditJournal = {
    append: (entries, version, settled) => () =>
      new Promise((answer) => {
        serially(() =>
          locked(async (handle) => {
            const start = await appendSoundly(handle, entries.map((entry) => line(entry, version)).join(""));
            answer(E.right(undefined));
            await settled.catch(() => undefined);
            if (version > (await committedVersion())) {
              leftAt = undefined;
              await cutBack(handle, start);
            } else if (entries.length > 0) await pruneSometimes(entries.length);
          }),
        ).catch((error: unknown) => answer(failure("writing")(error)));
      }),
    ready: () => async () => {
      if (failing === undefined) return E.right(undefined);
      const tested = await serially(() =>
        locked(async (handle) => {
          const start = await appendSoundly(handle, TEST_APPEND);
          leftAt = undefined;
          await cutBack(handle, start);
        }),
      ).then(() => E.right(undefined), failure("writing"));
      return E.mapLeft(() => storageFailure(`The audit trail ${path} cannot be appended to: ${failing ?? "unknown error"}.`))(tested);
    },
  };

  return {
    record: (entry) => groupCommit.submit<void>(entry),
    journal,
    repair: async () => {
      // Looked at without the lock first: a sound file (the usual case) is left alone, unlocked.
      const handle = await open(path, "r").catch(() => undefined);
      const size = handle === undefined ? 0 : (await handle.stat()).size;
      const sound = handle === undefined || (await soundEnd(handle, size)) === size;
      await handle?.close();
      if (!sound) await serially(() => locked(repairEnd)).catch(() => undefined);
    },
    list: (query) => () =>
      read().then((entries) => E.right(selectAuditPage(entries, query, retention)), failure("reading")),
    close: async () => {
      await groupCommit.drain();
      await serially(async () => undefined);
      await lock.close();
    },
  };
};
