import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import {
  isAuditedChange,
  type AuditEntry,
  type AuditHead,
  type AuditPageAfter,
  type AuditRetention,
} from "@sdwan-connections/core";
import { readingIfPresent, readIfPresent } from "./errors.js";
import * as E from "fp-ts/lib/Either.js";
import { AUDIT_FILE, AuditLine, decodeLine, parse, type ReadTrail } from "./audit-lines.js";

// How the trail is read: whole (lists, prunes), or by pages through an index of its lines (event replays).

/**
 * Where one entry's line is in the file, and what a reader is asked of it before it is decoded (`AuditHead`), with
 * what the retention counts: its time, whether it is a change, and how many of its kind come before it.
 */
export interface IndexedLine extends AuditHead {
  readonly id: string;
  readonly start: number;
  readonly end: number;
  readonly at: number;
  readonly commit: number;
  readonly change: boolean;
  readonly rank: number;
  /** Whether its line names webhooks its event goes to (the outbox). */
  readonly outbox: boolean;
}

/**
 * The trail's index: each complete line of one file (its identity), up to byte `size`, in the file's order. Its
 * lines only ever grow (a newer index of the same file shares them), so a page read meanwhile stays sound.
 */
export interface TrailIndex {
  readonly file: string;
  readonly mtimeMs: number;
  readonly size: number;
  readonly lines: IndexedLine[];
  readonly byId: Map<string, number>;
  readonly changes: number;
  readonly attempts: number;
}

export const emptyIndex = (): TrailIndex => ({
  file: "",
  mtimeMs: 0,
  size: 0,
  lines: [],
  byId: new Map(),
  changes: 0,
  attempts: 0,
});

export const text = (value: unknown): value is string => typeof value === "string";

/**
 * `index` grown by the complete lines of `bytes` (the file from byte `index.size` on, `size` bytes in all): each
 * line parsed once, as JSON only; one that is not an entry's is left out (lists report it).
 */
export const extendIndex = (index: TrailIndex, bytes: Buffer, file: string, mtimeMs: number): TrailIndex => {
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
      outbox: Array.isArray(value["webhooks"]),
    });
  }
  return { file, mtimeMs, size, lines, byId, changes, attempts };
};

/** Where the first line of `index` whose id is greater than `after` is (ids grow along the file). */
export const firstAfter = (index: TrailIndex, after: string): number => {
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

export interface TrailReaderOptions {
  readonly path: string;
  readonly retention: AuditRetention;
  /** The store version connections.json holds now. */
  readonly committedVersion: () => Promise<number>;
  /** Told, once per change of what it found, of lines that are not entries. */
  readonly onWarning?: ((message: string) => void) | undefined;
}

/** The reads of one audit trail, with what they keep between them: the index, the entries decoded lately, the bytes read. */
export const createTrailReader = ({ path, retention, committedVersion, onWarning }: TrailReaderOptions) => {
  let reported = "";
  // Bytes of the file read by this log, whole reads and pages alike (its tests count them).
  let bytesRead = 0;
  const readTrail = async (): Promise<ReadTrail> => {
    const bytes = await readIfPresent(path);
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
  /** Whether the retention keeps a line of `trail`, now, by its place (the entries' rule, `newestRetained`, goes by id). */
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
  const indexNow = (): Promise<TrailIndex> => readingIfPresent(path, emptyIndex(), currentIndex);
  const listAfter = (
    after: string | null,
    limit: number,
    select: (head: AuditHead) => boolean = () => true,
  ): Promise<AuditPageAfter> =>
    readingIfPresent(path, { entries: [], next: null }, async (handle) => {
      const page = await pageOf(handle, await currentIndex(handle), after, limit, select);
      if (page !== undefined) return page;
      // The file changed under the index (a line rewritten in place): read it whole again, once.
      index = emptyIndex();
      return (await pageOf(handle, await currentIndex(handle), after, limit, select)) ?? { entries: [], next: null };
    });

  return {
    readTrail,
    read,
    currentIndex,
    retainedBy,
    entriesAt,
    indexNow,
    listAfter,
    /** Forgets the index: the file changed under it (a line rewritten in place); the next read takes it whole. */
    forgetIndex: () => {
      index = emptyIndex();
    },
    /** The file is now `kept` (lines of the index, in order, each copied whole), with `stats`: none is read again. */
    rewritten: (kept: readonly IndexedLine[], { ino, birthtimeMs, mtimeMs }: Stats) => {
      let [size, changes, attempts] = [0, 0, 0];
      const lines = kept.map((line) => {
        const start = size;
        size += line.end - line.start;
        return { ...line, start, end: size, rank: line.change ? changes++ : attempts++ };
      });
      const byId = new Map(lines.map((line, at) => [line.id, at]));
      index = { file: `${ino}:${birthtimeMs}`, mtimeMs, size, lines, byId, changes, attempts };
    },
    bytesRead: () => bytesRead,
  };
};
