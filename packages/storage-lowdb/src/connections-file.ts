import { randomBytes } from "node:crypto";
import { statSync, type Stats } from "node:fs";
import { access, constants, mkdir, open, readdir, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { storageFailure, type DomainError } from "@sdwan-connections/core";
import { sealedKeyId, type Keyring } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { Low, type Adapter } from "lowdb";
import lockfile from "proper-lockfile";
import { ConnectionsFileFailure, describeConnectionsFileError, type ConnectionsFileError } from "./errors.js";
import { emptyState, parseConnectionsFile, serializedLength, serializeInto, storedConnection, type ConnectionsState, type StoredConnection } from "./file-format.js";

/** Name of the store's file inside the data directory. */
export const CONNECTIONS_FILE = "connections.json";

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
}

/** A change applied to the whole store under the lock; it returns its result, and whether it changed anything. */
export type Mutation<A> = (connections: Map<string, StoredConnection>) => E.Either<DomainError, { readonly value: A; readonly changed: boolean }>;

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
  read(): Promise<E.Either<DomainError, ConnectionsState>>;
  /** Grows whenever the state in memory changes (a write, or a re-read): lets readers cache what they derive from it. */
  readonly generation: number;
  /** Applies `mutation` under the lock to the freshest state and persists it before answering. */
  mutate<A>(mutation: Mutation<A>): Promise<E.Either<DomainError, A>>;
  /** Re-seals every apiKey not sealed with the keyring's current key; answers how many were. */
  rotate(): TaskEither<DomainError, { readonly rotated: number; readonly total: number }>;
  /** Succeeds when the file can be read and its directory written. */
  ping(): Promise<E.Either<DomainError, void>>;
  /** Waits for pending writes, then releases the file. Later calls fail with StorageFailure. */
  close(): Promise<void>;
}

/** Which file version is in memory. Its handle stays open so the inode cannot be reused by a later file. */
interface KnownVersion {
  readonly handle: FileHandle;
  readonly ino: number;
  readonly dev: number;
  readonly size: number;
  readonly mtimeMs: number;
}

const sameVersion = (known: KnownVersion | undefined, current: Stats): boolean =>
  known !== undefined && known.ino === current.ino && known.dev === current.dev && known.size === current.size && known.mtimeMs === current.mtimeMs;

const versionOf = (handle: FileHandle, stats: Stats): KnownVersion => ({
  handle,
  ino: stats.ino,
  dev: stats.dev,
  size: stats.size,
  mtimeMs: stats.mtimeMs,
});

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException | undefined)?.code ?? "unknown error";

const failureOf = (error: unknown): ConnectionsFileError | undefined => (error instanceof ConnectionsFileFailure ? error.error : undefined);

/** Turns anything thrown while reading or writing into a StorageFailure whose reason is safe to show. */
const toStorageFailure = (path: string, error: unknown): DomainError => {
  const fileError = failureOf(error);
  if (fileError !== undefined) return storageFailure(describeConnectionsFileError(fileError));
  return storageFailure(`Cannot write the connections file ${path}: ${errorCode(error)}.`);
};

/** A file whose apiKeys were sealed with keys this keyring does not hold is a wrong master key, not corruption. */
const checkKeyIds = (path: string, state: ConnectionsState, keyring: Keyring): ConnectionsFileError | undefined => {
  const known = new Set(keyring.keyIds);
  const unknown = new Set<string>();
  for (const connection of state.connections.values()) {
    const keyId = sealedKeyId(connection.sealedApiKey) as string;
    if (!known.has(keyId)) unknown.add(keyId);
  }
  return unknown.size === 0 ? undefined : { _tag: "WrongMasterKey", path, unknownKeyIds: [...unknown].sort(), knownKeyIds: keyring.keyIds };
};

/**
 * lowdb's adapter for the file: reads and checks it (keeping the handle it
 * read through), and writes it atomically: temporary file, fdatasync, rename,
 * fsync of the directory.
 */
class AtomicConnectionsAdapter implements Adapter<ConnectionsState> {
  known: KnownVersion | undefined;
  #directory: FileHandle | undefined;
  #sequence = 0;
  // Reused from write to write (writes never overlap): see serializeInto.
  #scratch = Buffer.alloc(0);

  constructor(
    readonly path: string,
    private readonly keyring: Keyring,
  ) {}

  /**
   * True when the file on disk is the version in memory (one stat). The stat
   * is synchronous on purpose: it runs on every read, and a metadata lookup of
   * a local file costs a few microseconds, far less than a trip through the
   * thread pool and the promise machinery that `fs.promises.stat` takes.
   */
  async isCurrent(): Promise<boolean> {
    try {
      return sameVersion(this.known, statSync(this.path));
    } catch (error) {
      if (errorCode(error) === "ENOENT") throw new ConnectionsFileFailure({ _tag: "FileMissing", path: this.path });
      throw new ConnectionsFileFailure({ _tag: "FileUnreadable", path: this.path, reason: errorCode(error) });
    }
  }

  /** The decoded file, or null when it does not exist; throws ConnectionsFileFailure when it cannot be used. */
  async read(): Promise<ConnectionsState | null> {
    let handle: FileHandle;
    try {
      handle = await open(this.path, "r");
    } catch (error) {
      if (errorCode(error) === "ENOENT") return null;
      throw new ConnectionsFileFailure({ _tag: "FileUnreadable", path: this.path, reason: errorCode(error) });
    }
    let keep = false;
    try {
      // Stats and text come from the same handle, so they describe the same version even if a rename happens meanwhile.
      const stats = await handle.stat();
      if (!stats.isFile()) throw new ConnectionsFileFailure({ _tag: "FileUnreadable", path: this.path, reason: "not a regular file" });
      const text = await handle.readFile("utf8");
      const parsed = parseConnectionsFile(text, this.path);
      if (E.isLeft(parsed)) throw new ConnectionsFileFailure(parsed.left);
      const wrongKey = checkKeyIds(this.path, parsed.right, this.keyring);
      if (wrongKey !== undefined) throw new ConnectionsFileFailure(wrongKey);
      this.#retire(this.known);
      this.known = versionOf(handle, stats);
      keep = true;
      return parsed.right;
    } catch (error) {
      if (error instanceof ConnectionsFileFailure) throw error;
      throw new ConnectionsFileFailure({ _tag: "FileUnreadable", path: this.path, reason: errorCode(error) });
    } finally {
      if (!keep) await handle.close();
    }
  }

  async write(state: ConnectionsState): Promise<void> {
    const length = serializedLength(state.connections);
    if (this.#scratch.length < length) this.#scratch = Buffer.allocUnsafe(Math.ceil(length * 1.25));
    const bytes = serializeInto(state.connections, this.#scratch.subarray(0, length));
    this.#sequence += 1;
    const temporary = join(dirname(this.path), `.${basename(this.path)}.${process.pid}.${this.#sequence}.${randomBytes(3).toString("hex")}.tmp`);
    const handle = await open(temporary, "wx", 0o600);
    let stats: Stats;
    try {
      // One write call (FileHandle.writeFile would cut 4 MB into 8 calls of 512 KiB, each a trip to the thread pool).
      for (let offset = 0; offset < bytes.length; ) {
        const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset);
        if (bytesWritten === 0) throw Object.assign(new Error("short write"), { code: "EIO" });
        offset += bytesWritten;
      }
      await handle.datasync(); // data and the size needed to read it back: all a new file needs before its rename
      stats = await handle.stat();
      await rename(temporary, this.path);
    } catch (error) {
      await handle.close();
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    // Closing the replaced version frees its blocks (~2 ms for 4 MB): done beside the directory fsync, not before it.
    this.#retire(this.known);
    this.known = versionOf(handle, stats);
  }

  /**
   * Makes the last rename itself durable (a crash of the machine, not just of
   * the process). Separate from `write` so that it can run while the lock is
   * being released: a reader needs the rename, only durability needs the fsync.
   */
  async syncDirectory(): Promise<void> {
    this.#directory ??= await open(dirname(this.path), "r");
    await this.#directory.sync();
  }

  #closing = new Set<Promise<void>>();

  #retire(version: KnownVersion | undefined): void {
    if (version === undefined) return;
    const closing = version.handle.close().catch(() => undefined);
    this.#closing.add(closing);
    void closing.then(() => this.#closing.delete(closing));
  }

  /** Forgets the version in memory: the next read re-reads the file. */
  forget(): void {
    this.#retire(this.known);
    this.known = undefined;
  }

  async close(): Promise<void> {
    this.forget();
    await Promise.all(this.#closing);
    await this.#directory?.close();
    this.#directory = undefined;
  }
}

/** Runs tasks one at a time, in order (reloads and commits of one process never interleave). */
const createSerialQueue = () => {
  let tail: Promise<unknown> = Promise.resolve();
  return <A>(task: () => Promise<A>): Promise<A> => {
    const result = tail.then(task, task);
    tail = result.catch(() => undefined);
    return result;
  };
};

interface PendingMutation {
  readonly mutation: Mutation<unknown>;
  readonly resolve: (result: E.Either<DomainError, unknown>) => void;
}

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

/**
 * Opens (creating when missing) `connections.json` in `dataDir`. Fails,
 * without touching the file, when it is unreadable, corrupt, of a newer
 * schema version, or sealed with a master key the keyring does not hold.
 */
export const openConnectionsFile =
  ({ dataDir, keyring, lockStaleMs = 10_000 }: OpenConnectionsFileOptions): TaskEither<ConnectionsFileError, ConnectionsFile> =>
  async () => {
    const path = join(dataDir, CONNECTIONS_FILE);
    const adapter = new AtomicConnectionsAdapter(path, keyring);
    const db = new Low<ConnectionsState>(adapter, emptyState());
    const stale = Math.max(lockStaleMs, 2000);
    let compromised = false;
    const maxTimeout = 25;
    const lockOptions: lockfile.LockOptions = {
      realpath: false,
      lockfilePath: `${path}.lock`,
      stale,
      retries: { retries: Math.ceil((2 * stale) / maxTimeout), minTimeout: 1, maxTimeout, factor: 1.5, randomize: true },
      // Our critical sections last milliseconds; if the lock was taken from us anyway, the write in progress is refused.
      onCompromised: () => {
        compromised = true;
      },
    };
    const withLock = async <A>(work: () => Promise<A>): Promise<A> => {
      let release: () => Promise<void>;
      try {
        release = await lockfile.lock(path, lockOptions);
      } catch (error) {
        throw new ConnectionsFileFailure({ _tag: "FileUnreadable", path, reason: `cannot take the lock ${path}.lock (${errorCode(error)})` });
      }
      compromised = false;
      try {
        return await work();
      } finally {
        await release().catch(() => undefined);
      }
    };

    try {
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      await removeOrphanedTemporaries(path);
      const existing = await db.adapter.read();
      if (existing === null) {
        await withLock(async () => {
          // Another process may have created it while we waited for the lock.
          const created = await db.adapter.read();
          if (created === null) {
            await adapter.write(emptyState());
            await adapter.syncDirectory();
            db.data = emptyState();
          } else {
            db.data = created;
          }
        });
      } else {
        db.data = existing;
      }
    } catch (error) {
      await adapter.close();
      const fileError = failureOf(error);
      return E.left(fileError ?? { _tag: "FileUnreadable", path, reason: errorCode(error) });
    }

    const serially = createSerialQueue();
    const pending: PendingMutation[] = [];
    let draining: Promise<void> | undefined;
    let closed = false;
    let generation = 0;

    const refresh = async (): Promise<void> => {
      if (await adapter.isCurrent()) return;
      const state = await adapter.read();
      if (state === null) throw new ConnectionsFileFailure({ _tag: "FileMissing", path });
      db.data = state;
      generation += 1;
    };

    // One locked write for every mutation queued meanwhile (group commit): a thousand concurrent adds cost a few writes.
    const commitBatch = async (): Promise<void> => {
      const batch = pending.splice(0);
      if (batch.length === 0) return;
      let results: E.Either<DomainError, unknown>[];
      let durable: Promise<void> | undefined;
      try {
        results = await withLock(async () => {
          await refresh();
          // Mutations change the live map (copying 10,000 entries per write would cost more than the write's
          // bookkeeping); should the write fail, the file is re-read below, which undoes them.
          const connections = db.data.connections as Map<string, StoredConnection>;
          let changed = false;
          const outcomes = batch.map(({ mutation }) => {
            const outcome = mutation(connections);
            if (E.isLeft(outcome)) return outcome;
            changed ||= outcome.right.changed;
            return E.right(outcome.right.value);
          });
          if (changed) {
            generation += 1;
            if (compromised) throw new Error("the lock was taken over by another process");
            await adapter.write(db.data);
            durable = adapter.syncDirectory();
            durable.catch(() => undefined); // awaited below, once the lock is released
          }
          return outcomes;
        });
        // Acknowledged only once durable.
        await durable;
      } catch (error) {
        // Forgetting the version in memory makes the next read or write re-read the file: memory follows what is on disk.
        const failure = E.left(toStorageFailure(path, error));
        results = batch.map(() => failure);
        adapter.forget();
      }
      batch.forEach(({ resolve }, index) => resolve(results[index] as E.Either<DomainError, unknown>));
    };

    const drain = (): Promise<void> =>
      (draining ??= (async () => {
        while (pending.length > 0) await serially(commitBatch);
        draining = undefined;
      })());

    const closedFailure = E.left(storageFailure(`The connections file ${path} is closed.`));

    const file: ConnectionsFile = {
      get generation() {
        return generation;
      },
      path,
      keyring,
      db,
      read: async () => {
        if (closed) return closedFailure;
        try {
          if (!(await adapter.isCurrent())) await serially(refresh);
          return E.right(db.data);
        } catch (error) {
          return E.left(toStorageFailure(path, error));
        }
      },
      mutate: <A>(mutation: Mutation<A>) =>
        closed
          ? Promise.resolve(closedFailure)
          : new Promise<E.Either<DomainError, A>>((resolve) => {
              pending.push({ mutation, resolve: resolve as PendingMutation["resolve"] });
              void drain();
            }),
      rotate: () => () =>
        file.mutate((connections) => {
          const total = connections.size;
          const resealed: [string, StoredConnection][] = [];
          for (const [key, connection] of connections) {
            if (!keyring.needsRotation(connection.sealedApiKey)) continue;
            const opened = keyring.open(connection.sealedApiKey, key);
            if (E.isLeft(opened)) {
              return E.left(storageFailure(`Cannot rotate the apiKey of '${connection.alias}': ${opened.left._tag}; nothing was re-sealed.`));
            }
            resealed.push([key, storedConnection(connection.alias, connection.orchestratorUrl, keyring.seal(opened.right, key))]);
          }
          for (const [key, connection] of resealed) connections.set(key, connection);
          return E.right({ value: { rotated: resealed.length, total }, changed: resealed.length > 0 });
        }),
      ping: async () => {
        const state = await file.read();
        if (E.isLeft(state)) return state;
        try {
          await access(dataDir, constants.W_OK);
          return E.right(undefined);
        } catch (error) {
          return E.left(storageFailure(`The data directory ${dataDir} is not writable: ${errorCode(error)}.`));
        }
      },
      close: async () => {
        closed = true;
        await drain();
        await serially(() => adapter.close());
      },
    };
    return E.right(file);
  };
