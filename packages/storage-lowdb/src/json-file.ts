import { randomBytes } from "node:crypto";
import { open, readFile, rename, stat, unlink } from "node:fs/promises";
import { basename } from "node:path";
import { storageFailure, toFieldErrors, type DomainError } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type * as t from "io-ts";
import { errorCode } from "./errors.js";
import { createSerialQueue } from "./group-commit.js";
import { createFileLock, type FileLock } from "./lock.js";

/** How old what is in memory may be before a read looks at the file again, even when it looks unchanged. */
const MAX_AGE_MS = 1_000;

export interface LockedJsonFileOptions<A> {
  readonly path: string;
  readonly codec: t.Type<A, unknown, unknown>;
  /** What the file holds before it is first written. */
  readonly empty: A;
  /** What the file is, in a failure's words ("a tokens file"). */
  readonly what: string;
  /** As `openConnectionsFile`'s: after how long a dead process's lock is taken over (ms). */
  readonly lockStaleMs: number;
}

/**
 * One JSON document beside `connections.json`, shared by every process over the data directory. A read takes
 * it again when a `stat` shows another process replaced it, or when what is in memory is older than a second.
 * A change reads it under a cross-process lock of its own, then replaces it atomically (temporary file,
 * fdatasync, rename).
 */
export const createLockedJsonFile = <A>({ path, codec, empty, what, lockStaleMs }: LockedJsonFileOptions<A>) => {
  const name = basename(path);
  const serially = createSerialQueue();
  let lock: FileLock | undefined;
  let value = empty;
  let loaded: { readonly version: string; readonly at: number } | undefined;

  const failure = (doing: string, error: unknown) =>
    storageFailure(
      `Storage failure while ${doing} ${name}: ${error instanceof Error ? error.message : String(error)}.`,
    );

  const versionOnDisk = async (): Promise<string> => {
    try {
      const { ino, size, mtimeMs } = await stat(path);
      return `${ino}:${size}:${mtimeMs}`;
    } catch (error) {
      if (errorCode(error) === "ENOENT") return "absent";
      throw error;
    }
  };

  /** The document as on disk now: read again unless the file is the version in memory, read less than a second ago. */
  const refresh: TaskEither<DomainError, A> = async () => {
    const version = await versionOnDisk();
    if (loaded?.version === version && Date.now() - loaded.at < MAX_AGE_MS) return E.right(value);
    const text =
      version === "absent"
        ? undefined
        : await readFile(path, "utf8").catch((error: unknown) =>
            errorCode(error) === "ENOENT" ? undefined : Promise.reject(error),
          );
    let json: unknown;
    try {
      json = text === undefined ? codec.encode(empty) : JSON.parse(text);
    } catch {
      return E.left(storageFailure(`Storage failure: ${name} is not JSON.`));
    }
    const decoded = codec.decode(json);
    if (E.isLeft(decoded)) {
      const fields = toFieldErrors(decoded.left, "file").map((error) => `${error.field} ${error.message}`);
      return E.left(storageFailure(`Storage failure: ${name} is not ${what} (${fields.join("; ")}).`));
    }
    loaded = { version, at: Date.now() };
    value = decoded.right;
    return E.right(value);
  };

  const write = async (next: A): Promise<void> => {
    const temporary = `${path}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`;
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(JSON.stringify(codec.encode(next)));
      await handle.datasync();
    } catch (error) {
      await handle.close();
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await handle.close();
    await rename(temporary, path);
    value = next;
    loaded = undefined; // the next read takes the new file's version
  };

  return {
    /** `answer` over the document as on disk. */
    read:
      <B>(answer: (current: A) => B): TaskEither<DomainError, B> =>
      async () => {
        try {
          return E.map(answer)(await serially(refresh));
        } catch (error) {
          return E.left(failure("reading", error));
        }
      },
    /** One change under the lock: `next` answers the document after it (undefined: nothing changes) and the caller's answer. */
    change:
      <B>(next: (current: A) => Promise<{ readonly value?: A; readonly answer: B }>): TaskEither<DomainError, B> =>
      async () => {
        const done = await serially(() =>
          (lock ??= createFileLock(path, lockStaleMs)).run(async () => {
            const current = await refresh();
            if (E.isLeft(current)) return current;
            const changed = await next(current.right);
            if (changed.value !== undefined) await write(changed.value);
            return E.right(changed.answer);
          })(),
        ).catch((error: unknown) => E.left(error instanceof Error ? error.message : String(error)));
        return E.isLeft(done) ? E.left(failure("writing", done.left)) : done.right;
      },
    close: async () => {
      await serially(async () => undefined);
      await lock?.close();
    },
  };
};
