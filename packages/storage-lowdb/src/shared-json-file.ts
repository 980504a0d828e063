import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { DomainError, StoredChange } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type * as t from "io-ts";
import { replaceDurably } from "./durable-write.js";
import { decodeStoredJson, errorCode, failedWhile } from "./errors.js";
import { createSerialQueue } from "./group-commit.js";
import { createFileLock, type FileLock } from "./lock.js";

/** How old the contents in memory may be before a read takes the file again, even when it looks unchanged. */
const MAX_AGE_MS = 1_000;

export interface SharedJsonFileOptions<A> {
  /** The data directory, as for `openConnectionsFile`. */
  readonly dataDir: string;
  /** The file's name in it, e.g. `tokens.json`. */
  readonly name: string;
  /** What the file holds, decoded on every read (outside input). */
  readonly codec: t.Type<A, unknown, unknown>;
  /** What an absent file holds. */
  readonly empty: A;
  /** As `openConnectionsFile`'s: after how long a dead process's lock is taken over (ms). */
  readonly lockStaleMs?: number | undefined;
}

export interface SharedJsonFile<A> {
  /** The contents as on disk now (read again unless the file is the version in memory, read less than a second ago), answered by `answer`. */
  read<B>(what: string, answer: (contents: A) => B): TaskEither<DomainError, B>;
  /** One change under the cross-process lock: `next` gives the contents after it (undefined: nothing changes) and the caller's answer. */
  change<B>(
    what: string,
    next: (contents: A) => StoredChange<A, B> | Promise<StoredChange<A, B>>,
  ): TaskEither<DomainError, B>;
  /** Whether the file on disk is not the version last read or written (another process replaced it). */
  changedOnDisk(): Promise<boolean>;
  /** Waits for the reads and changes under way, then releases the lock. */
  close(): Promise<void>;
}

/**
 * A small JSON file beside `connections.json`, shared by every process over the data directory (service tokens,
 * grants, webhooks). A read takes the file again when a `stat` shows another process replaced it, or when what is in
 * memory is older than a second, so every process sees a change within one. A change reads the file under a
 * cross-process lock of its own, then replaces it atomically (temporary file, fdatasync, rename).
 */
export const openSharedJsonFile = <A>({
  dataDir,
  name,
  codec,
  empty,
  lockStaleMs = 10_000,
}: SharedJsonFileOptions<A>): SharedJsonFile<A> => {
  const path = join(dataDir, name);
  const serially = createSerialQueue();
  let lock: FileLock | undefined;
  let contents = empty;
  let loaded: { readonly version: string; readonly at: number } | undefined;
  let lastVersion: string | undefined;

  const failure = (what: string, error: unknown) => failedWhile(`${what} ${name}`, error);

  // Synchronous, as the connections file's: a metadata lookup costs microseconds, a trip through the thread pool costs
  // the idle service a thread's wakeup and the event loop's at every poll (issue 40: 4.8 ms of CPU a second idle).
  const versionOnDisk = (): string => {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats === undefined ? "absent" : `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
  };

  const refresh: TaskEither<DomainError, A> = async () => {
    const version = versionOnDisk();
    if (loaded?.version === version && Date.now() - loaded.at < MAX_AGE_MS) return E.right(contents);
    const text =
      version === "absent"
        ? undefined
        : await readFile(path, "utf8").catch((error: unknown) =>
            errorCode(error) === "ENOENT" ? undefined : Promise.reject(error),
          );
    const decoded = text === undefined ? E.right(empty) : decodeStoredJson(name, text, codec);
    if (E.isLeft(decoded)) return decoded;
    loaded = { version, at: Date.now() };
    lastVersion = version;
    contents = decoded.right;
    return E.right(contents);
  };

  const write = async (next: A): Promise<void> => {
    const { handle, stats } = await replaceDurably(path, JSON.stringify(codec.encode(next)));
    await handle.close();
    // The version the file shows once renamed (a rename keeps the inode, its size and mtime): what this process
    // wrote is not read back, while a replacement by another process since is still seen.
    const written = `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    lastVersion = written;
    loaded = { version: written, at: Date.now() };
    contents = next;
  };

  return {
    read: (what, answer) => async () => {
      try {
        return E.map(answer)(await serially(refresh));
      } catch (error) {
        return E.left(failure(what, error));
      }
    },
    change: (what, next) => async () => {
      const done = await serially(() =>
        (lock ??= createFileLock(path, lockStaleMs)).run(async () => {
          const current = await refresh();
          if (E.isLeft(current)) return current;
          const { next: after, answer } = await next(current.right);
          if (after !== undefined) await write(after);
          return E.right(answer);
        })(),
      ).catch((error: unknown) => E.left(error instanceof Error ? error.message : String(error)));
      return E.isLeft(done) ? E.left(failure(what, done.left)) : done.right;
    },
    changedOnDisk: async () => {
      try {
        return versionOnDisk() !== lastVersion;
      } catch {
        return false;
      }
    },
    close: async () => {
      await serially(async () => undefined);
      await lock?.close();
    },
  };
};
