import { mkdir, readdir, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import {
  entryAsWritten,
  storageFailure,
  type AuditEntry,
  type DomainError,
  type KeyRotationReport,
} from "@sdwan-connections/core";
import type { Keyring } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { Low } from "lowdb";
import { DurableFileAdapter } from "./durable-file-adapter.js";
import {
  ConnectionsFileFailure,
  describeConnectionsFileError,
  errorCode,
  type ConnectionsFileError,
} from "./errors.js";
import { CONNECTIONS_FILE, emptyState, type ConnectionsState, type StoredConnection } from "./file-format.js";
import { createGroupCommit, createSerialQueue } from "./group-commit.js";
import type { AuditJournal } from "./audit-file.js";
import { createFileLock, type FileLock } from "./lock.js";
import type { Mutation } from "./mutation.js";
import { resealKeys } from "./rotation.js";
import { createWriteProbe } from "./write-probe.js";

export interface OpenConnectionsFileOptions {
  /** The data directory (SDWAN_DATA_DIR); created with mode 0700 when missing. */
  readonly dataDir: string;
  /** Seals and opens apiKeys; see `@sdwan-connections/secrets`. */
  readonly keyring: Keyring;
  /**
   * After how long a lock left by a dead process is taken over (ms, at least
   * 2000; default 10000). Waiting for a lock gives up after twice as long.
   */
  readonly lockStaleMs?: number;
  /**
   * The audit trail beside the file (`createLowdbAuditLog(...).journal`): the entries given with writes are
   * appended to it, durably, in the write's group commit, before the file is replaced, and cut off again if
   * the replacement fails (see `AuditJournal`). Without it, a write given an entry fails and changes nothing.
   */
  readonly audit?: AuditJournal;
}

/** A mutation waiting for the group commit, with the audit entry of its success. */
interface Submitted {
  readonly mutation: Mutation<unknown>;
  readonly entry: AuditEntry | undefined;
}

/**
 * The opened connections file: the lowdb client the repository is built on.
 * Reads answer from memory after one `stat` shows the file unchanged; writes
 * go through `mutate`, which batches concurrent callers into one locked,
 * atomic, fsynced write.
 */
export interface ConnectionsFile {
  readonly path: string;
  readonly keyring: Keyring;
  /** The lowdb instance; `db.data` is the last state read or written. */
  readonly db: Low<ConnectionsState>;
  /** The current state, re-read first when another process changed the file. */
  read(): TaskEither<DomainError, ConnectionsState>;
  /** Grows whenever the state in memory changes (a write, or a re-read): lets readers cache what they derive from it. */
  readonly generation: number;
  /**
   * Applies `mutation` under the lock to the freshest state and persists it before answering; with `entry`,
   * the audit entry of its success, appended durably to the audit trail in the same group commit, before the
   * file is replaced (an entry never misses an answered change; should the replacement then fail, or the
   * process die before it, the entry is cut off again: see `AuditJournal`).
   */
  mutate<A>(mutation: Mutation<A>, entry?: AuditEntry): TaskEither<DomainError, A>;
  /** Re-seals every apiKey not sealed with the keyring's current key; answers how many were. */
  rotate(entry?: AuditEntry): TaskEither<DomainError, KeyRotationReport>;
  /**
   * Succeeds when the file can be read, a file written and synced in its directory (a full disk fails it;
   * answers are reused for a second), and the audit trail appended to (see `AuditJournal.ready`).
   */
  ping(): TaskEither<DomainError, void>;
  /** Waits for pending writes, then releases the file. Later calls fail with StorageFailure. */
  close(): Promise<void>;
}

const failureOf = (error: unknown): ConnectionsFileError | undefined =>
  error instanceof ConnectionsFileFailure ? error.error : undefined;

/** Turns anything thrown while reading or writing into a StorageFailure whose reason is safe to show. */
const toStorageFailure = (path: string, error: unknown): DomainError => {
  const fileError = failureOf(error);
  if (fileError !== undefined) return storageFailure(describeConnectionsFileError(fileError));
  return storageFailure(`Cannot write the connections file ${path}: ${errorCode(error)}.`);
};

const isProcessAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === "EPERM";
  }
};

/** Removes temporary files left by writers of this machine that died mid-write (SIGKILL, power loss). */
const removeOrphanedTemporaries = async (path: string): Promise<void> => {
  const prefix = `.${basename(path)}.`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith(".tmp")) continue;
    const pid = Number(name.slice(prefix.length).split(".")[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !isProcessAlive(pid)) {
      await unlink(join(dirname(path), name)).catch(() => undefined);
    }
  }
};

/** The lock's failure, thrown inside the I/O wrapper that turns it into a value. */
const lockFailure = (path: string, reason: string) =>
  new ConnectionsFileFailure({ _tag: "FileUnreadable", path, reason });

/**
 * Opens (creating when missing) `connections.json` in `dataDir`. Fails,
 * without touching the file, when it is unreadable, corrupt, of a newer
 * schema version, or sealed with a master key the keyring does not hold.
 *
 * It composes the package's parts: lowdb's `Low` over the durable file
 * adapter (`durable-file-adapter.ts`), the cross-process lock (`lock.ts`),
 * the group commit (`group-commit.ts`), the file format (`file-format.ts`)
 * and key rotation (`rotation.ts`).
 */
export const openConnectionsFile =
  ({
    dataDir,
    keyring,
    lockStaleMs = 10_000,
    audit,
  }: OpenConnectionsFileOptions): TaskEither<ConnectionsFileError, ConnectionsFile> =>
  async () => {
    const path = join(dataDir, CONNECTIONS_FILE);
    const adapter = new DurableFileAdapter(path, keyring);
    const db = new Low<ConnectionsState>(adapter, emptyState());
    let lock: FileLock | undefined;
    const withLock = async <A>(work: (compromised: () => boolean) => Promise<A>): Promise<A> => {
      const result = await (lock as FileLock).run(work)();
      if (E.isLeft(result)) throw lockFailure(path, result.left);
      return result.right;
    };

    try {
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      lock = createFileLock(path, lockStaleMs);
      await db.read();
      if (adapter.known === undefined) {
        await withLock(async () => {
          // Another process may have created it while we waited for the lock.
          await db.read();
          if (adapter.known === undefined) {
            await db.write();
            await adapter.syncDirectory();
          }
        });
      }
    } catch (error) {
      await adapter.close();
      await lock?.close();
      return E.left(failureOf(error) ?? { _tag: "FileUnreadable", path, reason: errorCode(error) });
    }
    const fileLock = lock;

    const serially = createSerialQueue();
    const canWrite = createWriteProbe(dataDir);
    let closed = false;
    let generation = 0;
    // What dead writers left is cleaned up by this process's first write: one that only reads looks at nothing more.
    let orphansRemoved: Promise<void> | undefined;

    // One stat for every read asked for before it is taken, in the event loop's check phase (after the turn's I/O):
    // a read still sees every change another process made before it was asked for, as with a stat of its own. The http
    // bench's profile of GET /connections: the stat was about 5% of a listed request's CPU, with some ten requests a turn.
    let freshness: Promise<boolean> | undefined;
    const isCurrent = (): Promise<boolean> =>
      (freshness ??= new Promise<boolean>((resolve, reject) =>
        setImmediate(() => {
          freshness = undefined; // before the stat: a read asked for after it waits for the next one
          adapter.isCurrent().then(resolve, reject);
        }),
      ));

    /** Re-reads the file when another process changed it (one stat when it did not). */
    const refresh = async (): Promise<void> => {
      if (await adapter.isCurrent()) return;
      await db.read();
      generation += 1;
    };

    // One locked write for every mutation queued meanwhile.
    const commit = async (batch: readonly Submitted[]): Promise<readonly E.Either<DomainError, unknown>[]> => {
      let durable: Promise<void> | undefined;
      let unaudited: DomainError | undefined;
      let appended: Promise<void> | undefined;
      // Settles once the change has landed (or failed): the audit trail keeps its entries locked until then.
      let settle: () => void = () => undefined;
      const settled = new Promise<void>((resolve) => (settle = resolve));
      try {
        const results = await withLock(async (compromised) => {
          await (orphansRemoved ??= removeOrphanedTemporaries(path));
          await refresh();
          // Mutations change the live map (copying 10,000 entries per write would cost more than the write's
          // bookkeeping); should the write fail, the file is re-read below, which undoes them.
          const state = db.data;
          const connections = state.connections as Map<string, StoredConnection>;
          const nextVersion = () => (state.lastVersion += 1);
          const before = state.lastVersion;
          let changed = false;
          const entries: AuditEntry[] = [];
          const outcomes = batch.map(({ mutation, entry }) => {
            if (entry !== undefined && audit === undefined)
              return E.left(storageFailure(`The connections file ${path} was opened without its audit trail.`));
            const outcome = mutation(connections, nextVersion);
            if (E.isLeft(outcome)) return outcome;
            changed ||= outcome.right.changed;
            if (entry !== undefined) entries.push(entryAsWritten(entry, outcome.right.changed, outcome.right.written));
            return E.right(outcome.right.value);
          });
          // Every change raises the store's version (a delete or a rotation gives none otherwise): the audit
          // trail tells by it whether the change its entries record has landed.
          if (changed && state.lastVersion === before) state.lastVersion += 1;
          if (compromised()) throw new Error("the lock was taken over by another process");
          // Write-ahead: the entries are durable before the change they record is. Their append (and its
          // fdatasync) runs beside the writing of the new file; the rename that makes the change waits for it.
          // A change without entries still has the trail's end looked at first (an entry left by a writer that
          // died before its change landed must go before the version moves past it), when the trail can be.
          appended =
            audit === undefined || (entries.length === 0 && !changed)
              ? undefined
              : audit
                  .append(entries, state.lastVersion, settled)()
                  .then((result) => {
                    if (E.isRight(result) || entries.length === 0) return;
                    unaudited = result.left;
                    throw new Error("the audit trail cannot be written");
                  });
          appended?.catch(() => undefined); // awaited below or by the rename
          if (changed) {
            generation += 1;
            if (appended !== undefined) adapter.renameAfter(appended);
            await db.write();
            durable = adapter.syncDirectory();
            durable.catch(() => undefined); // awaited below, once the lock is released
          }
          await appended;
          return outcomes;
        });
        // Acknowledged only once durable.
        await durable;
        return results;
      } catch (error) {
        // Forgetting the version in memory makes the next read or write re-read the file: memory follows what is on disk.
        adapter.forget();
        await appended?.catch(() => undefined); // settled, so the failure names the audit trail when it was the cause
        return batch.map(() => E.left(unaudited ?? toStorageFailure(path, error)));
      } finally {
        settle();
      }
    };
    const groupCommit = createGroupCommit({ serially }, commit);

    const closedFailure = E.left(storageFailure(`The connections file ${path} is closed.`));

    const file: ConnectionsFile = {
      get generation() {
        return generation;
      },
      path,
      keyring,
      db,
      read: () => async () => {
        if (closed) return closedFailure;
        try {
          if (!(await isCurrent())) await serially(refresh);
          return E.right(db.data);
        } catch (error) {
          return E.left(toStorageFailure(path, error));
        }
      },
      mutate:
        <A>(mutation: Mutation<A>, entry?: AuditEntry) =>
        () =>
          closed
            ? Promise.resolve(closedFailure)
            : groupCommit.submit<A>({ mutation: mutation as Mutation<unknown>, entry })(),
      rotate: (entry) => file.mutate(resealKeys(keyring), entry),
      ping: () => async () => {
        const state = await file.read()();
        if (E.isLeft(state)) return state;
        const written = await canWrite();
        if (E.isLeft(written))
          return E.left(storageFailure(`The data directory ${dataDir} cannot be written: ${written.left}.`));
        return audit === undefined ? E.right(undefined) : audit.ready()();
      },
      close: async () => {
        closed = true;
        await groupCommit.drain();
        await serially(() => adapter.close());
        await fileLock.close();
      },
    };
    return E.right(file);
  };
