import { statSync, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { healthRules, type DomainError, type HealthLedger } from "@sdwan-connections/core";
import { ConnectionHealth } from "@sdwan-connections/core/wire";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { replaceDurably } from "./durable-write.js";
import { decodeStoredJson, errorCode, failedWhile, openIfPresent } from "./errors.js";
import { createGroupCommit, createSerialQueue } from "./group-commit.js";
import { createFileLock, type FileLock } from "./lock.js";

/** Name of the health states' file inside the data directory. */
export const HEALTH_FILE = "health.json";

const WarningsCodec = t.type({ mark: t.string, thresholds: t.array(t.number) });
const HealthFileCodec = t.intersection([
  t.type({
    /** Per alias key (lower case): the connection's health. */
    connections: t.record(t.string, ConnectionHealth),
    /** Per alias key: the last interval claimed for a background check. */
    claims: t.record(t.string, t.number),
  }),
  /** Per alias key: the key-expiry warnings claimed, for the key the mark names (absent in files written before them). */
  t.partial({ warnings: t.record(t.string, WarningsCodec) }),
]);

/** The file in memory: per alias key, its health and its claim, each with its bytes in the file once encoded (a write encodes only what changed). */
interface Ledger {
  readonly connections: Map<string, { readonly health: ConnectionHealth; bytes?: Buffer }>;
  readonly claims: Map<string, { readonly window: number; bytes?: Buffer }>;
  readonly warnings: Map<string, t.TypeOf<typeof WarningsCodec>>;
}

/** One member of a JSON object, comma first: `,"key":value`. */
const member = (key: string, value: unknown): Buffer => Buffer.from(`,${JSON.stringify(key)}:${JSON.stringify(value)}`);
/** The members, as the inside of a JSON object (the first without its comma). */
const members = (encoded: readonly Buffer[]): readonly Buffer[] =>
  encoded.map((bytes, index) => (index === 0 ? bytes.subarray(1) : bytes));

/** The file's bytes, copied once from each connection's and claim's own. */
const encode = (ledger: Ledger): Buffer =>
  Buffer.concat([
    Buffer.from('{"connections":{'),
    ...members(
      [...ledger.connections].map(
        ([key, entry]) => (entry.bytes ??= member(key, ConnectionHealth.encode(entry.health))),
      ),
    ),
    Buffer.from('},"claims":{'),
    ...members([...ledger.claims].map(([key, claim]) => (claim.bytes ??= member(key, claim.window)))),
    Buffer.from('},"warnings":{'),
    ...members([...ledger.warnings].map(([key, warned]) => member(key, warned))),
    Buffer.from("}}"),
  ]);

/** Which file the ledger in memory is: the handle it was read or written through (so its inode is not reused meanwhile), or none on disk. */
type KnownVersion = { readonly handle: FileHandle; readonly stats: Stats } | "absent";

const sameFile = (known: KnownVersion | undefined, stats: Stats | undefined): boolean =>
  known === "absent" || stats === undefined
    ? known === "absent" && stats === undefined
    : known !== undefined &&
      known.stats.ino === stats.ino &&
      known.stats.dev === stats.dev &&
      known.stats.size === stats.size &&
      known.stats.mtimeMs === stats.mtimeMs;

/** One change of the ledger, made in place: whether it changed anything, and what the caller is answered. */
type Change = (ledger: Ledger) => { readonly changed: boolean; readonly answer: unknown };

export interface LowdbHealthLedgerOptions {
  /** The data directory, as for `openConnectionsFile`. */
  readonly dataDir: string;
  /** As `openConnectionsFile`'s: after how long a dead process's lock is taken over (ms). */
  readonly lockStaleMs?: number;
}

/**
 * Health states in `health.json` beside `connections.json`, so that every process over the data
 * directory (the service, a CLI `validate`) records and reads the same states, and they survive a
 * restart. The states stay in memory between changes and are read again only when one `stat` shows that
 * another process replaced the file. Changes that arrive while a write runs, or soon after, go together in
 * the next one: under a cross-process lock of its own, they change the states in memory, then the file is replaced
 * once, atomically (temporary file, fdatasync, rename), re-encoding only the connections that changed.
 * Reads take no lock. The lock registers this process only at its first write, so a command that only
 * reads writes nothing.
 */
export const createLowdbHealthLedger = ({
  dataDir,
  lockStaleMs = 10_000,
}: LowdbHealthLedgerOptions): HealthLedger & { close(): Promise<void> } => {
  const path = join(dataDir, HEALTH_FILE);
  let lock: FileLock | undefined;
  let ledger: Ledger = { connections: new Map(), claims: new Map(), warnings: new Map() };
  let known: KnownVersion | undefined;
  let closing: Promise<unknown> = Promise.resolve();
  const serially = createSerialQueue();

  const failure = (what: string) => (error: unknown) => E.left(failedWhile(`${what} ${HEALTH_FILE}`, error));

  /** Takes `next` as the version in memory, closing the handle of the one before. */
  const remember = (next: KnownVersion | undefined): void => {
    if (known !== undefined && known !== "absent")
      closing = Promise.all([closing, known.handle.close().catch(() => undefined)]);
    known = next;
  };

  // Synchronous on purpose, as the connections file's: it runs before every change and read.
  const isCurrent = (): boolean => {
    try {
      return sameFile(known, statSync(path));
    } catch (error) {
      if (errorCode(error) === "ENOENT") return sameFile(known, undefined);
      throw error;
    }
  };

  /** Reads the file again (the states and the version from one handle, so they match). */
  const load: TaskEither<DomainError, Ledger> = async () => {
    const handle = await openIfPresent(path);
    if (handle === undefined) {
      ledger = { connections: new Map(), claims: new Map(), warnings: new Map() };
      remember("absent");
      return E.right(ledger);
    }
    let stats: Stats;
    let decoded: E.Either<DomainError, t.TypeOf<typeof HealthFileCodec>>;
    try {
      stats = await handle.stat();
      const text = await handle.readFile("utf8");
      decoded = decodeStoredJson(HEALTH_FILE, text, HealthFileCodec, "move it away to start every state unknown");
    } catch (error) {
      await handle.close();
      throw error;
    }
    if (E.isLeft(decoded)) {
      await handle.close();
      return decoded;
    }
    ledger = {
      connections: new Map(Object.entries(decoded.right.connections).map(([key, health]) => [key, { health }])),
      claims: new Map(Object.entries(decoded.right.claims).map(([key, window]) => [key, { window }])),
      warnings: new Map(Object.entries(decoded.right.warnings ?? {})),
    };
    remember({ handle, stats });
    return E.right(ledger);
  };

  /** The states, read again first when the file is not the version in memory. */
  const refresh: TaskEither<DomainError, Ledger> = async () => (isCurrent() ? E.right(ledger) : load());

  const write = async (): Promise<void> => {
    const bytes = encode(ledger);
    remember(await replaceDurably(path, bytes));
  };

  // Changes that arrive while a write runs (a background round claims and records many connections at
  // once) go together in the next one: under the lock, at most one read and one write for the whole batch. It rests
  // while busy: a round's changes came back to back, ~190 rewrites of ~2 MB at 10,000 connections (issue 40).
  const apply = async (batch: readonly Change[]): Promise<readonly E.Either<DomainError, unknown>[]> => {
    const current = await refresh();
    if (E.isLeft(current)) return batch.map(() => current);
    let changed = false;
    const answers = batch.map((change) => {
      const done = change(current.right);
      changed ||= done.changed;
      return E.right(done.answer);
    });
    try {
      if (changed) await write();
    } catch (error) {
      // The changes are in memory only: forgetting the version makes the next change or read undo them.
      remember(undefined);
      throw error;
    }
    return answers;
  };
  const groupCommit = createGroupCommit<Change>({ serially, rests: true }, async (batch) => {
    const done = await (lock ??= createFileLock(path, lockStaleMs))
      .run(() => apply(batch))()
      .catch((error: unknown) => E.left(error instanceof Error ? error.message : String(error)));
    return E.isLeft(done) ? batch.map(() => failure("writing")(done.left)) : done.right;
  });
  return {
    ...healthRules((change) => groupCommit.submit(change)),
    list: () => async () => {
      try {
        const current = isCurrent() ? E.right(ledger) : await serially(refresh);
        return E.map(({ connections }: Ledger): readonly ConnectionHealth[] =>
          [...connections.values()].map(({ health }) => health),
        )(current);
      } catch (error) {
        return failure("reading")(error);
      }
    },
    close: async () => {
      await groupCommit.drain();
      await lock?.close();
      remember(undefined);
      await closing;
    },
  };
};
