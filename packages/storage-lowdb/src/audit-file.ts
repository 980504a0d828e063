import { open, readFile, rename, stat, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import {
  AuditEntryProps,
  DEFAULT_AUDIT_RETENTION,
  IsoTimeCodec,
  createAuditListeners,
  isAuditedChange,
  retainedAuditEntries,
  selectAuditPage,
  storageFailure,
  type AuditEntry,
  type AuditHead,
  type AuditLog,
  type AuditPageAfter,
  type AuditRetention,
  type DomainError,
  type Webhook,
  webhooksFor,
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

// Exact: a change's entry also carries `commit` (see AuditJournal), which lists do not show. `version` and
// `orchestratorUrl` are absent from entries that have none, and from lines written before they were kept.
const AuditLine = t.exact(
  t.intersection([
    t.type({ ...AuditEntryProps, at: IsoTimeCodec, requestId: t.union([t.string, t.null]) }),
    t.partial({ version: t.number, orchestratorUrl: t.string }),
  ]),
);
const CommitMark = t.type({ commit: t.number });
// The outbox: the ids of the webhooks an entry's event is delivered to, written in the entry's own line.
const WebhooksMark = t.type({ webhooks: t.array(t.string) });

/** Which webhooks an entry goes to (their ids; none when it is not an event). */
type Targets = (entry: AuditEntry) => readonly string[];

const line = (entry: AuditEntry, targets: Targets, commit?: number): string => {
  const webhooks = targets(entry);
  return `${JSON.stringify({
    ...AuditLine.encode(entry as t.TypeOf<typeof AuditLine>),
    ...(commit === undefined ? {} : { commit }),
    ...(webhooks.length === 0 ? {} : { webhooks }),
  })}\n`;
};

const targetsOf =
  (webhooks: readonly Webhook[]): Targets =>
  (entry) =>
    webhooksFor(entry, webhooks).map((webhook) => webhook.id);

const decodeLine = (raw: string): E.Either<unknown, unknown> =>
  E.tryCatch(
    () => JSON.parse(raw) as unknown,
    (error) => error,
  );

/**
 * The trail as read: its entries, where each one's line ends (the byte after its newline, in the file), the store
 * version each change's entry awaits (`commit`, by id), and the numbers of the lines that are not one (never their
 * content: it may be anything).
 */
interface ReadTrail {
  readonly entries: AuditEntry[];
  readonly ends: number[];
  readonly commits: Map<string, number>;
  /** The webhooks each entry's event goes to (by id), for the entries that name any. */
  readonly webhooks: Map<string, readonly string[]>;
  readonly damaged: number[];
}

/**
 * Every complete line of `bytes` (the file from byte `from` on), decoded; a last line without its newline is an
 * append under way or cut short, and is skipped.
 */
const parse = (bytes: Buffer, from = 0): ReadTrail => {
  const trail: ReadTrail = { entries: [], ends: [], commits: new Map(), webhooks: new Map(), damaged: [] };
  for (let start = 0, index = 1, end = bytes.indexOf(0x0a); end !== -1; index += 1) {
    const json = decodeLine(bytes.toString("utf8", start, end));
    const decoded = E.flatMap((value: unknown) => AuditLine.decode(value))(json);
    if (E.isLeft(decoded)) trail.damaged.push(index);
    else {
      trail.entries.push(decoded.right as AuditEntry);
      trail.ends.push(from + end + 1);
      const mark = E.flatMap((value: unknown) => CommitMark.decode(value))(json);
      if (E.isRight(mark)) trail.commits.set(decoded.right.id, mark.right.commit);
      const targets = E.flatMap((value: unknown) => WebhooksMark.decode(value))(json);
      if (E.isRight(targets)) trail.webhooks.set(decoded.right.id, targets.right.webhooks);
    }
    start = end + 1;
    end = bytes.indexOf(0x0a, start);
  }
  return trail;
};

/**
 * Where one entry's line is in the file, and what a reader is asked of it before it is decoded (`AuditHead`), with
 * what the retention counts: its time, whether it is a change, and how many of its kind come before it.
 */
interface IndexedLine extends AuditHead {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  readonly at: number;
  readonly commit: number;
  readonly change: boolean;
  readonly rank: number;
}

/**
 * The trail's index: each complete line of one file (its identity), up to byte `size`, in the file's order. Its
 * lines only ever grow (a newer index of the same file shares them), so a page read meanwhile stays sound.
 */
interface TrailIndex {
  readonly file: string;
  readonly mtimeMs: number;
  readonly size: number;
  readonly lines: IndexedLine[];
  readonly byId: Map<string, number>;
  readonly changes: number;
  readonly attempts: number;
}

const emptyIndex = (): TrailIndex => ({
  file: "",
  mtimeMs: 0,
  size: 0,
  lines: [],
  byId: new Map(),
  changes: 0,
  attempts: 0,
});

const text = (value: unknown): value is string => typeof value === "string";

/**
 * `index` grown by the complete lines of `bytes` (the file from byte `index.size` on, `size` bytes in all): each
 * line parsed once, as JSON only; one that is not an entry's is left out (lists report it).
 */
const extendIndex = (index: TrailIndex, bytes: Buffer, file: string, mtimeMs: number): TrailIndex => {
  const { lines, byId } = index;
  let { changes, attempts, size } = index;
  for (let start = 0, end = bytes.indexOf(0x0a); end !== -1; start = end + 1, end = bytes.indexOf(0x0a, start)) {
    const json = decodeLine(bytes.toString("utf8", start, end));
    const value = (E.isRight(json) ? json.right : null) as Record<string, unknown> | null;
    size = index.size + end + 1;
    if (value === null || typeof value !== "object" || !text(value["id"]) || !text(value["action"])) continue;
    if (!text(value["outcome"]) || !text(value["at"]) || !(value["alias"] === null || text(value["alias"]))) continue;
    const head = { alias: value["alias"], action: value["action"], outcome: value["outcome"] } as AuditHead;
    const change = isAuditedChange(head as Pick<AuditEntry, "action" | "outcome">);
    byId.set(value["id"], lines.length);
    lines.push({
      ...head,
      id: value["id"],
      start: index.size + start,
      end: size,
      at: Date.parse(value["at"]),
      commit: typeof value["commit"] === "number" ? value["commit"] : 0,
      change,
      rank: change ? changes++ : attempts++,
    });
  }
  return { file, mtimeMs, size, lines, byId, changes, attempts };
};

/** Where the first line of `index` whose id is greater than `after` is (ids grow along the file). */
const firstAfter = (index: TrailIndex, after: string): number => {
  let [low, high] = [0, index.lines.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((index.lines[middle] as IndexedLine).id <= after) low = middle + 1;
    else high = middle;
  }
  return low;
};

// How many decoded entries a log keeps for the pages that follow: replays that start together and drift apart still share.
const DECODED_KEPT = 10_000;

// How often a log with subscribers looks for entries other processes appended (the events' promise is a second).
const WATCH_INTERVAL_MS = 250;

/**
 * The store version connections.json holds now (its `lastVersion`, 0 without a file): read from the header
 * the file format writes first, the whole file only when the header is not the usual one.
 */
const committedVersionIn = (dataDir: string) => async (): Promise<number> => {
  const path = join(dataDir, CONNECTIONS_FILE);
  const handle = await open(path, "r").catch((error: NodeJS.ErrnoException) =>
    error.code === "ENOENT" ? undefined : Promise.reject(error),
  );
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
const soundEndIn = async (
  tail: Buffer,
  from: number,
  committedVersion: () => Promise<number>,
): Promise<number | undefined> => {
  let end = tail.lastIndexOf(0x0a) + 1;
  let committed: number | undefined;
  for (;;) {
    if (end === 0) return from === 0 ? 0 : undefined;
    const start = tail.lastIndexOf(0x0a, end - 2) + 1;
    if (start === 0 && from > 0) return undefined;
    const mark = E.flatMap((json: unknown) => CommitMark.decode(json))(
      decodeLine(tail.toString("utf8", start, end - 1)),
    );
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
  /** The webhooks now (read under the trail's lock, before each append): each entry's line names those its event goes to. */
  readonly webhooks?: () => Promise<readonly Webhook[]>;
  /** The last entry the webhooks' relays turned into deliveries: a rewrite keeps the outbox lines after it. */
  readonly outboxCursor?: () => Promise<string | null>;
}

/** The outbox as the trail holds it: the landed entries after a cursor that name webhooks, and the cursor after them. */
export interface TrailOutbox {
  readonly marked: readonly { readonly entry: AuditEntry; readonly webhooks: readonly string[] }[];
  readonly cursor: string | null;
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
  /**
   * The entries that name webhooks after entry `cursor` (every one when null), in the file's order, up to the first
   * whose change has not landed (yet, or ever): what relays turn into deliveries.
   */
  outboxAfter(cursor: string | null): Promise<TrailOutbox>;
  /** The entry `id` while the file holds it (a webhook's redelivery reads a settled delivery's event there). */
  entry(id: string): Promise<AuditEntry | undefined>;
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
  let reported = "";
  // Where the outbox was last read up to: the file, the byte after the line of the entry that is the cursor.
  let outboxRead: { readonly file: string; readonly end: number; readonly cursor: string | null } | undefined;

  // Bytes of the file read by this log, whole reads and pages alike (its tests count them).
  let bytesRead = 0;
  const readTrail = async (): Promise<ReadTrail> => {
    const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) =>
      error.code === "ENOENT" ? Buffer.alloc(0) : Promise.reject(error),
    );
    bytesRead += bytes.length;
    const trail = parse(bytes);
    const { damaged } = trail;
    const found =
      damaged.length === 0
        ? ""
        : `${AUDIT_FILE}: ${damaged.length} damaged line(s) skipped (line ${damaged.slice(0, 20).join(", ")}${damaged.length > 20 ? ", …" : ""}); the next rewrite drops them.`;
    if (found !== reported) {
      reported = found;
      if (found !== "") onWarning?.(found);
    }
    return trail;
  };
  const read = async (): Promise<AuditEntry[]> => (await readTrail()).entries;

  /** `length` bytes of the file from `position` (fewer at its end). */
  const readAt = async (handle: FileHandle, position: number, length: number): Promise<Buffer> => {
    const bytes = Buffer.alloc(Math.max(0, length));
    const { bytesRead: read } = await handle.read(bytes, 0, bytes.length, position);
    bytesRead += read;
    return bytes.subarray(0, read);
  };

  // The entries pages decoded last, by id (oldest first): replays of the same stretch (readers reconnecting after an
  // outage) share them, and so share the events made of them and their frames, instead of one copy per reader.
  const decodedLately = new Map<string, AuditEntry>();
  // The index of the file as last read: pages seek with it, reading only the lines they hand out.
  let index = emptyIndex();
  /**
   * The index brought up to the file as it is now: the lines appended since it was read are read (once), and the
   * whole file again only after a rewrite, or a cut that took the last line it knew.
   */
  const currentIndex = async (handle: FileHandle): Promise<TrailIndex> => {
    const { ino, birthtimeMs, size, mtimeMs } = await handle.stat();
    const file = `${ino}:${birthtimeMs}`; // inodes are reused
    if (index.file === file && index.size === size && index.mtimeMs === mtimeMs) return index;
    const last = index.lines.at(-1);
    const grown =
      index.file === file &&
      size >= index.size &&
      (last === undefined || (await entriesAt(handle, [last]))?.[0] !== undefined);
    const from = grown ? index : emptyIndex();
    index = extendIndex(from, await readAt(handle, from.size, size - from.size), file, mtimeMs);
    return index;
  };
  /**
   * The entries of `lines` (in the file's order) read from the file, adjacent ones in one read; undefined when one
   * is not where the index says (the file changed under it). A line that is no entry (damaged) is left out.
   */
  const entriesAt = async (handle: FileHandle, wanted: readonly IndexedLine[]): Promise<AuditEntry[] | undefined> => {
    // Taken now: other pages may push them out of the cache while this one reads.
    const read = new Map<string, AuditEntry>();
    for (const line of wanted) {
      const known = decodedLately.get(line.id);
      if (known !== undefined) read.set(line.id, known);
    }
    const lines = wanted.filter((line) => !read.has(line.id));
    for (let first = 0; first < lines.length;) {
      let last = first;
      while (last + 1 < lines.length && (lines[last + 1] as IndexedLine).start === (lines[last] as IndexedLine).end)
        last += 1;
      const from = (lines[first] as IndexedLine).start;
      const bytes = await readAt(handle, from, (lines[last] as IndexedLine).end - from);
      for (const line of lines.slice(first, last + 1)) {
        const json = decodeLine(bytes.toString("utf8", line.start - from, line.end - 1 - from));
        if (E.isLeft(json) || (json.right as { id?: unknown } | null)?.id !== line.id) return undefined;
        const decoded = AuditLine.decode(json.right);
        if (E.isRight(decoded)) read.set(line.id, decoded.right as AuditEntry);
      }
      first = last + 1;
    }
    for (const [id, entry] of read) {
      decodedLately.delete(id);
      decodedLately.set(id, entry);
      if (decodedLately.size > DECODED_KEPT) decodedLately.delete(decodedLately.keys().next().value as string);
    }
    return wanted.flatMap((line) => read.get(line.id) ?? []);
  };
  /** Whether the retention keeps a line of `trail`, now: as `retainedAuditEntries` decides, from the index alone. */
  const retainedBy = (trail: TrailIndex, now = Date.now()) => {
    const oldest = now - retention.maxAgeMs;
    return (line: IndexedLine) =>
      line.at >= oldest &&
      (line.change
        ? trail.changes - line.rank <= retention.maxEntries
        : trail.attempts - line.rank <= retention.maxAttempts);
  };
  /** A page of `trail` after `after` (see AuditLog.listAfter); undefined when a line is not where the index says. */
  const pageOf = async (
    handle: FileHandle,
    trail: TrailIndex,
    after: string | null,
    limit: number,
    select: (head: AuditHead) => boolean,
  ): Promise<AuditPageAfter | undefined> => {
    const kept = retainedBy(trail);
    const position = after === null ? undefined : trail.byId.get(after);
    const read: IndexedLine[] = [];
    const chosen: IndexedLine[] = [];
    let committed: number | undefined;
    for (
      let at = after === null ? 0 : position === undefined ? firstAfter(trail, after) : position + 1;
      at < trail.lines.length && read.length < limit;
      at += 1
    ) {
      const line = trail.lines[at] as IndexedLine;
      if (!kept(line)) continue;
      // A change whose version connections.json does not hold (yet, or ever) is not there: heard once it lands.
      if (line.commit > 0 && line.commit > (committed ??= await committedVersion())) continue;
      read.push(line);
      if (select(line)) chosen.push(line);
    }
    const entries = await entriesAt(handle, chosen);
    return entries === undefined
      ? undefined
      : { entries, next: read.length < limit ? null : (read.at(-1)?.id ?? null) };
  };
  /** The index of the file as it is now (empty without a file). */
  const indexNow = async (): Promise<TrailIndex> => {
    const handle = await open(path, "r").catch((error: NodeJS.ErrnoException) =>
      error.code === "ENOENT" ? undefined : Promise.reject(error),
    );
    if (handle === undefined) return emptyIndex();
    try {
      return await currentIndex(handle);
    } finally {
      await handle.close();
    }
  };
  const listAfter = async (
    after: string | null,
    limit: number,
    select: (head: AuditHead) => boolean = () => true,
  ): Promise<AuditPageAfter> => {
    const handle = await open(path, "r").catch((error: NodeJS.ErrnoException) =>
      error.code === "ENOENT" ? undefined : Promise.reject(error),
    );
    if (handle === undefined) return { entries: [], next: null };
    try {
      const page = await pageOf(handle, await currentIndex(handle), after, limit, select);
      if (page !== undefined) return page;
      // The file changed under the index (a line rewritten in place): read it whole again, once.
      index = emptyIndex();
      return (await pageOf(handle, await currentIndex(handle), after, limit, select)) ?? { entries: [], next: null };
    } finally {
      await handle.close();
    }
  };

  /**
   * Subscribers hear this process's entries once durable (a change's once it landed), and, by a look at the
   * file every WATCH_INTERVAL_MS while any listens, those other processes appended: each id once (`told`), a
   * change's entry only once connections.json holds its version.
   */
  const listeners = createAuditListeners();
  const told = new Set<string>();
  let watched: { readonly ino: number; readonly size: number; readonly mtimeMs: number } | undefined;
  let awaitingCommit = false;
  let watcher: NodeJS.Timeout | undefined;
  let watching = false;
  // This process's entries between their append and their telling: never told by a look at the file.
  const mine = new Set<string>();
  const tell = (entry: AuditEntry): void => {
    told.add(entry.id);
    listeners.tell(entry);
  };
  const lookForOthers = async (): Promise<void> => {
    const now = await stat(path).catch(() => undefined);
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
    const handle = await open(path, "r").catch((error: NodeJS.ErrnoException) =>
      error.code === "ENOENT" ? undefined : Promise.reject(error),
    );
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
          index = emptyIndex();
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
    watcher = setInterval(() => {
      if (looking) return;
      looking = true;
      void lookForOthers()
        .catch(() => undefined)
        .finally(() => (looking = false));
    }, WATCH_INTERVAL_MS);
    watcher.unref();
  };
  const stopWatching = (): void => {
    watching = false;
    clearInterval(watcher);
    watcher = undefined;
    told.clear();
  };

  const prune = async (): Promise<void> => {
    // Whether anything is to go, first from the index (grown by the lines appended since, each parsed once): a
    // health round at 10,000 connections appends 10,000 entries, and each prune decoded the whole trail, 20 times
    // a round, a growing share of the round's CPU (issue 40). Only a trail with something to drop is decoded.
    const reader = await open(path, "r").catch(() => undefined);
    if (reader === undefined) return;
    try {
      const indexed = await currentIndex(reader);
      const kept = indexed.lines.filter(retainedBy(indexed)).length;
      // Lists leave out what is past the retention: the whole trail is rewritten only once that is a quarter of what
      // it keeps, not at every prune past it (a round of 10,000 health changes over a full trail rewrote it 20 times).
      if ((indexed.lines.length - kept) * 4 < Math.max(1, kept)) return;
    } finally {
      await reader.close();
    }
    const trail = await readTrail();
    const { entries } = trail;
    const retained = new Set(retainedAuditEntries(entries, retention));
    const cursor = retained.size === entries.length ? null : await outboxCursor();
    // Lines of the outbox no relay has read yet stay, however old: their events are still to be delivered.
    const kept = entries.filter(
      (entry) => retained.has(entry) || (trail.webhooks.has(entry.id) && (cursor === null || entry.id > cursor)),
    );
    if (kept.length === entries.length) return;
    const temporary = `${path}.${process.pid}.tmp`;
    const handle = await open(temporary, "w", 0o600);
    try {
      await handle.writeFile(kept.map((entry) => line(entry, () => trail.webhooks.get(entry.id) ?? [])).join(""));
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

  const failure = (what: string) => (error: unknown) =>
    E.left(
      storageFailure(
        `Storage failure while ${what} the audit trail: ${error instanceof Error ? error.message : String(error)}.`,
      ),
    );

  // Appends of this process, its own and the connections file's, run one at a time (never contending for the lock).
  const serially = createSerialQueue();
  const groupCommit = createGroupCommit<AuditEntry>(serially, async (batch) => {
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
              if (entries.length > 0) await pruneSometimes(entries.length);
            }
          }),
        )
          .catch((error: unknown) => answer(failure("writing")(error)))
          .finally(() => landed(kept));
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
    outboxAfter: async (cursor) => {
      const handle = await open(path, "r").catch((error: NodeJS.ErrnoException) =>
        error.code === "ENOENT" ? undefined : Promise.reject(error),
      );
      if (handle === undefined) return { marked: [], cursor };
      try {
        // Only what follows the cursor's line when this process read up to it last, in this file (not rewritten since).
        const { ino, birthtimeMs, size } = await handle.stat();
        const file = `${ino}:${birthtimeMs}`; // inodes are reused
        const from =
          outboxRead?.file === file && outboxRead.cursor === cursor && outboxRead.end <= size ? outboxRead.end : 0;
        const bytes = Buffer.alloc(size - from);
        await handle.read(bytes, 0, bytes.length, from);
        const { entries, ends, commits, webhooks: targets } = parse(bytes, from);
        const committed = commits.size === 0 ? 0 : await committedVersion();
        const at = from > 0 || cursor === null ? -1 : entries.findIndex((entry) => entry.id === cursor);
        // Read whole, the entries after the cursor's; after a cursor the trail no longer holds (pruned), the newer ones.
        const before = (index: number, entry: AuditEntry) =>
          from === 0 && cursor !== null && (at === -1 ? entry.id <= cursor : index <= at);
        const marked: { entry: AuditEntry; webhooks: readonly string[] }[] = [];
        let last = cursor;
        let end = at === -1 ? from : (ends[at] ?? from);
        for (const [index, entry] of entries.entries()) {
          if (before(index, entry)) continue;
          if ((commits.get(entry.id) ?? 0) > committed) break;
          const named = targets.get(entry.id);
          if (named !== undefined) marked.push({ entry, webhooks: named });
          last = entry.id;
          end = ends[index] ?? end;
        }
        if (end > 0) outboxRead = { file, end, cursor: last };
        return { marked, cursor: last };
      } finally {
        await handle.close();
      }
    },
    repair: async () => {
      // Looked at without the lock first: a sound file (the usual case) is left alone, unlocked.
      const handle = await open(path, "r").catch(() => undefined);
      const size = handle === undefined ? 0 : (await handle.stat()).size;
      const sound = handle === undefined || (await soundEnd(handle, size)) === size;
      await handle?.close();
      if (!sound) await serially(() => locked(repairEnd)).catch(() => undefined);
    },
    entry: async (id) => (await read()).find((entry) => entry.id === id),
    list: (query) => () =>
      read().then((entries) => E.right(selectAuditPage(entries, query, retention)), failure("reading")),
    listAfter: (after, limit, select) => () =>
      listAfter(after, limit, select).then((page) => E.right(page), failure("reading")),
    bytesRead: () => bytesRead,
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
