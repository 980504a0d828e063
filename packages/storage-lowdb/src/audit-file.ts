import { statSync, type Stats } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import {
  BEAT_MS,
  DEFAULT_AUDIT_RETENTION,
  everyBeat,
  newestRetained,
  createAuditListeners,
  selectAuditPage,
  storageFailure,
  type AuditEntry,
  type AuditLog,
  type AuditRetention,
  type DomainError,
  type Webhook,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { replaceDurably } from "./durable-write.js";
import { createTrailReader, emptyIndex, type IndexedLine } from "./audit-index.js";
import { AUDIT_FILE, committedVersionIn, line, soundEndIn, targetsOf } from "./audit-lines.js";
import { errorCode, failedWhile, openIfPresent } from "./errors.js";
import { createGroupCommit, createSerialQueue } from "./group-commit.js";
import { createFileLock } from "./lock.js";

export { AUDIT_FILE } from "./audit-lines.js";

// Appends between two rewrites that drop what the retention no longer keeps (lists leave it out before).
const APPENDS_PER_PRUNE = 500;

// How often a log with subscribers looks for entries other processes appended (the events' promise is a second).
const WATCH_INTERVAL_MS = BEAT_MS;

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
  /** The webhooks now (read under the trail's lock, before each append): each entry's line names those its event goes to. */
  readonly webhooks?: () => Promise<readonly Webhook[]>;
  /** The last entry the webhooks' relays turned into deliveries: a rewrite keeps the outbox lines after it. */
  readonly outboxCursor?: () => Promise<string | null>;
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
  webhooks = async () => [],
  outboxCursor = async () => null,
}: LowdbAuditLogOptions): AuditLog & {
  readonly journal: AuditJournal;
  /** Makes the file's end sound now (at a start); a failure is left to `journal.ready` to report. */
  repair(): Promise<void>;
  /** How many bytes of the file this log has read so far (what its tests count). */
  bytesRead(): number;
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

  const reader = createTrailReader({ path, retention, committedVersion, onWarning });
  const { currentIndex, entriesAt, indexNow, read, retainedBy } = reader;

  /**
   * Subscribers hear this process's entries once durable (a change's once it landed), and, by a look at the
   * file every WATCH_INTERVAL_MS while any listens, those other processes appended: each id once (`told`), a
   * change's entry only once connections.json holds its version.
   */
  const listeners = createAuditListeners();
  const told = new Set<string>();
  let watched: { readonly ino: number; readonly size: number; readonly mtimeMs: number } | undefined;
  let awaitingCommit = false;
  let stopWatcher: (() => void) | undefined;
  let watching = false;
  // This process's entries between their append and their telling: never told by a look at the file.
  const mine = new Set<string>();
  const tell = (entry: AuditEntry): void => {
    told.add(entry.id);
    listeners.tell(entry);
  };
  const lookForOthers = async (): Promise<void> => {
    // Synchronous: see shared-json-file.ts's versionOnDisk (this runs every 250 ms while a stream is open).
    let now: Stats | undefined;
    try {
      now = statSync(path, { throwIfNoEntry: false });
    } catch {
      now = undefined;
    }
    const seen = now === undefined ? undefined : { ino: now.ino, size: now.size, mtimeMs: now.mtimeMs };
    if (
      !awaitingCommit &&
      seen?.ino === watched?.ino &&
      seen?.size === watched?.size &&
      seen?.mtimeMs === watched?.mtimeMs
    )
      return;
    watched = seen;
    // From the index: only what was appended since it was read is read, and only the entries not told are decoded.
    const handle = await openIfPresent(path);
    try {
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const trail = handle === undefined ? emptyIndex() : await currentIndex(handle);
        let committed: number | undefined;
        let waiting = false;
        const due: IndexedLine[] = [];
        for (const line of trail.lines) {
          if (told.has(line.id)) continue;
          if (line.commit > 0 && line.commit > (committed ??= await committedVersion())) waiting = true;
          else due.push(line);
        }
        const entries = handle === undefined ? [] : await entriesAt(handle, due);
        // The file changed under the index (a line rewritten in place): read it whole again, once.
        if (entries === undefined) {
          reader.forgetIndex();
          continue;
        }
        awaitingCommit = waiting;
        for (const entry of entries.sort((a, b) => (a.id < b.id ? -1 : 1))) if (!told.has(entry.id)) tell(entry);
        // What the file no longer holds (pruned) is never seen again: forgotten, so `told` stays as small as the trail.
        for (const id of told) if (!trail.byId.has(id) && !mine.has(id)) told.delete(id);
        return;
      }
    } finally {
      await handle?.close();
    }
  };
  const ownAppend = (entries: readonly AuditEntry[]) => {
    for (const entry of entries) {
      mine.add(entry.id);
      if (watching) told.add(entry.id);
    }
    return (landed: boolean) => {
      for (const entry of entries) {
        mine.delete(entry.id);
        if (landed) listeners.tell(entry);
      }
    };
  };
  const startWatching = async (): Promise<void> => {
    if (watching) return;
    watching = true;
    // Everything already in the file is the past: a subscriber hears what is appended from now on. Known from the
    // index (only what was appended since it was read is read), not by decoding the whole trail at every first stream.
    for (const line of (await indexNow()).lines) told.add(line.id);
    const current = await stat(path).catch(() => undefined);
    watched = current === undefined ? undefined : { ino: current.ino, size: current.size, mtimeMs: current.mtimeMs };
    let looking = false;
    // On the process's shared beat (core's `everyBeat`): one wake of an idle service for all its periodic looks.
    stopWatcher = everyBeat(WATCH_INTERVAL_MS, () => {
      if (looking) return;
      looking = true;
      void lookForOthers()
        .catch(() => undefined)
        .finally(() => (looking = false));
    });
  };
  const stopWatching = (): void => {
    watching = false;
    stopWatcher?.();
    stopWatcher = undefined;
    told.clear();
  };

  const prune = async (): Promise<void> => {
    // Whether anything is to go, from the index (grown by the lines appended since, each parsed once): a health round
    // at 10,000 connections appends 10,000 entries, and each prune decoded the whole trail (issue 40).
    const trail = await open(path, "r").catch(() => undefined);
    if (trail === undefined) return;
    try {
      const indexed = await currentIndex(trail);
      const kept = indexed.lines.filter(retainedBy(indexed)).length;
      // Lists leave out what is past the retention: the whole trail is rewritten only once that is a quarter of what
      // it keeps, not at every prune past it (a round of 10,000 health changes over a full trail rewrote it 20 times).
      if ((indexed.lines.length - kept) * 4 < Math.max(1, kept)) return;
      const cursor = await outboxCursor();
      // What the retention keeps, as of entries, by id; and the lines of the outbox no relay has read yet, however
      // old: their events are still to be delivered. Each line copied as it is (one that is no entry's dropped).
      const oldest = Date.now() - retention.maxAgeMs;
      const keep = new Set(newestRetained(indexed.lines, (at) => at.change, retention).filter((at) => at.at >= oldest));
      const whole = await trail.readFile();
      const lines = indexed.lines.filter((at) => keep.has(at) || (at.outbox && (cursor === null || at.id > cursor)));
      if (lines.length === indexed.lines.length) return;
      const { handle, stats } = await replaceDurably(
        path,
        Buffer.concat(lines.map((at) => whole.subarray(at.start, at.end))),
      );
      await handle.close();
      reader.rewritten(lines, stats);
      leftAt = undefined;
    } finally {
      await trail.close();
    }
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
    const done = await lock
      .run(async () => {
        const handle = await open(path, "a+", 0o600);
        try {
          return await work(handle);
        } finally {
          await handle.close();
        }
      })()
      .catch((error: unknown) => E.left(errorCode(error)));
    if (E.isRight(done)) return done.right;
    failing ??= done.left;
    throw new Error(done.left);
  };

  const pruneSometimes = async (count: number): Promise<void> => {
    // At the first append, then once per APPENDS_PER_PRUNE entries.
    if (appends === 0 || Math.floor((appends + count) / APPENDS_PER_PRUNE) > Math.floor(appends / APPENDS_PER_PRUNE))
      await prune();
    appends += count;
  };

  const failure = (what: string) => (error: unknown) => E.left(failedWhile(`${what} the audit trail`, error));

  // Appends of this process, its own and the connections file's, run one at a time (never contending for the lock).
  // Its own rest while busy (a round's health changes came in ~190 appends); the connections file's never wait.
  const serially = createSerialQueue();
  const groupCommit = createGroupCommit<AuditEntry>({ serially, rests: true }, async (batch) => {
    const landed = ownAppend(batch);
    const result = await locked(async (handle) => {
      const targets = targetsOf(await webhooks());
      await appendSoundly(handle, batch.map((entry) => line(entry, targets)).join(""));
      await pruneSometimes(batch.length);
    }).then(() => E.right(undefined), failure("writing"));
    landed(E.isRight(result));
    return batch.map(() => result);
  });

  const journal: AuditJournal = {
    append: (entries, version, settled) => () =>
      new Promise((answer) => {
        const landed = ownAppend(entries);
        let kept = false;
        serially(() =>
          locked(async (handle) => {
            const targets = targetsOf(await webhooks());
            const start = await appendSoundly(handle, entries.map((entry) => line(entry, targets, version)).join(""));
            answer(E.right(undefined));
            await settled.catch(() => undefined);
            if (version > (await committedVersion())) {
              leftAt = undefined;
              await cutBack(handle, start);
            } else {
              kept = true;
              // Told now, not once the lock is released: the streams and the relays wait for nothing more.
              landed(true);
              if (entries.length > 0) await pruneSometimes(entries.length);
            }
          }),
        )
          .catch((error: unknown) => answer(failure("writing")(error)))
          .finally(() => kept || landed(false));
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
      return E.mapLeft(() =>
        storageFailure(`The audit trail ${path} cannot be appended to: ${failing ?? "unknown error"}.`),
      )(tested);
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
    listAfter: (after, limit, select) => () =>
      reader.listAfter(after, limit, select).then((page) => E.right(page), failure("reading")),
    bytesRead: reader.bytesRead,
    subscribe: (listener) => () =>
      startWatching().then(() => {
        const remove = listeners.add(listener);
        return E.right(() => {
          remove();
          if (listeners.size() === 0) stopWatching();
        });
      }, failure("watching")),
    close: async () => {
      stopWatching();
      await groupCommit.drain();
      await serially(async () => undefined);
      await lock.close();
    },
  };
};
