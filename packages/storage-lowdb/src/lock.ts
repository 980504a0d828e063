import { readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { mkdir, readFile, rm, rmdir, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import * as E from "fp-ts/lib/Either.js";
import lockfile from "proper-lockfile";
import { errorCode } from "./errors.js";

/** Who holds the lock: enough to tell, on this machine, that the holder is dead. */
interface Owner {
  readonly host: string;
  readonly pid: number;
  /** The process's start time (Linux: clock ticks since boot), so a reused pid is not mistaken for the holder. */
  readonly started: string | undefined;
  /** The inode of the lock directory this owner made, so an owner file is never taken for a newer lock's. */
  readonly lock: number;
}

/** A process's start time, from /proc where there is one. */
const startTimeOf = (pid: number | "self"): string | undefined => {
  try {
    // Field 22 of /proc/<pid>/stat, counted after the command name (which may hold spaces and parentheses).
    const line = readFileSync(`/proc/${pid}/stat`, "utf8");
    return line.slice(line.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
};

const isAlive = (owner: Owner): boolean => {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if (errorCode(error) !== "EPERM") return false;
  }
  // Alive, unless the pid now belongs to another process than the one that took the lock.
  return owner.started === undefined || startTimeOf(owner.pid) === undefined || startTimeOf(owner.pid) === owner.started;
};

const readOwner = async (file: string): Promise<Owner | undefined> => {
  try {
    return JSON.parse(await readFile(file, "utf8")) as Owner;
  } catch {
    return undefined;
  }
};

const inodeOf = async (path: string): Promise<number | undefined> => {
  try {
    return (await stat(path)).ino;
  } catch {
    return undefined;
  }
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface FileLock {
  /**
   * Runs `work` holding the lock, across processes. `compromised()` turns
   * true if the lock was taken over meanwhile (work that outlived the stale
   * threshold), so a write in progress can refuse to finish.
   */
  run<A>(work: (compromised: () => boolean) => Promise<A>): Promise<E.Either<string, A>>;
}

/**
 * The cross-process lock of `path`: proper-lockfile's lock directory
 * (`<path>.lock`), taken over after `staleMs` without an update, as before;
 * plus an owner file (`<path>.lock.owner`: host, pid, process start time) so
 * that a lock left by a process that died on this machine (SIGKILL) is
 * recognised at once instead of after `staleMs`. A live holder's lock is
 * never broken; the breaking itself is serialised by `<path>.lock.break`.
 */
export const createFileLock = (path: string, staleMs: number): FileLock => {
  const lockDir = `${path}.lock`;
  const ownerFile = `${lockDir}.owner`;
  const breakDir = `${lockDir}.break`;
  const self = { host: hostname(), pid: process.pid, started: startTimeOf("self") };
  const stale = Math.max(staleMs, 2000);

  /** Removes the lock when its owner file names a dead process of this machine and still describes this lock directory. */
  const breakIfOwnerDead = async (): Promise<void> => {
    const owner = await readOwner(ownerFile);
    if (owner === undefined || owner.host !== self.host || isAlive(owner)) return;
    try {
      await mkdir(breakDir);
    } catch {
      // Another process is breaking it; a break directory older than a few seconds was left by a dead breaker.
      const age = await stat(breakDir).then((stats) => Date.now() - stats.mtimeMs, () => 0);
      if (age > 5_000) await rmdir(breakDir).catch(() => undefined);
      return;
    }
    try {
      // Checked again under the break lock: the lock may have changed hands meanwhile.
      const current = await readOwner(ownerFile);
      if (current !== undefined && current.pid === owner.pid && current.lock === (await inodeOf(lockDir)) && !isAlive(current)) {
        await unlink(ownerFile).catch(() => undefined);
        await rm(lockDir, { recursive: true, force: true });
      }
    } finally {
      await rmdir(breakDir).catch(() => undefined);
    }
  };

  const acquire = async (onCompromised: () => void): Promise<E.Either<string, () => Promise<void>>> => {
    const giveUpAt = Date.now() + 2 * stale;
    for (let wait = 1; ; wait = Math.min(wait * 1.5, 25)) {
      try {
        const release = await lockfile.lock(path, { realpath: false, lockfilePath: lockDir, stale, retries: 0, onCompromised });
        // Synchronous on purpose, as the reader's stat: a few local metadata operations per write cost less this way
        // than trips through the thread pool. Written in place: a holder killed mid-write leaves an owner file that
        // does not parse, which breaks nothing (the lock then goes stale after `staleMs`, as one without an owner does).
        writeFileSync(ownerFile, JSON.stringify({ ...self, lock: statSync(lockDir).ino } satisfies Owner), { mode: 0o600 });
        return E.right(async () => {
          try {
            unlinkSync(ownerFile);
          } catch {
            // Already gone: a breaker took a lock it believed dead, or the directory was removed.
          }
          await release().catch(() => undefined);
        });
      } catch (error) {
        if (errorCode(error) !== "ELOCKED") return E.left(`cannot take the lock ${lockDir} (${errorCode(error)})`);
        if (Date.now() > giveUpAt) return E.left(`cannot take the lock ${lockDir} (held for more than ${2 * stale} ms)`);
      }
      await breakIfOwnerDead();
      await pause(wait * (0.5 + Math.random()));
    }
  };

  return {
    run: async (work) => {
      let compromised = false;
      const release = await acquire(() => {
        // Our critical sections last milliseconds; if the lock was taken from us anyway, the write in progress is refused.
        compromised = true;
      });
      if (E.isLeft(release)) return release;
      try {
        return E.right(await work(() => compromised));
      } finally {
        await release.right();
      }
    },
  };
};
