import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { errorCode } from "./errors.js";

/** A process that uses the store: enough to tell, on this machine, that it is dead. */
interface User {
  readonly host: string;
  readonly pid: number;
  /** The process's start time (Linux: clock ticks since boot), so a reused pid is not mistaken for it. */
  readonly started: string | undefined;
  /** The identity (`lockIdentity`) of the lock directory it took last: the lock it holds, if that one still exists. */
  readonly holds?: string;
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

const isAlive = (user: User): boolean => {
  try {
    process.kill(user.pid, 0);
  } catch (error) {
    if (errorCode(error) !== "EPERM") return false;
  }
  // Alive, unless the pid now belongs to another process than the one that registered.
  const started = startTimeOf(user.pid);
  return user.started === undefined || started === undefined || started === user.started;
};

const readUser = async (file: string): Promise<User | undefined> => {
  try {
    return JSON.parse(await readFile(file, "utf8")) as User;
  } catch {
    return undefined;
  }
};

/** Which lock directory this is (inode and birth time: inodes are reused). */
const lockIdentity = async (path: string): Promise<string | undefined> => {
  try {
    const stats = await stat(path);
    return `${stats.ino}:${stats.birthtimeMs}`;
  } catch {
    return undefined;
  }
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A user of the store, registered: who it is and its registration's file. */
interface Registered {
  readonly self: User;
  readonly registration: string;
}

export interface FileLock {
  /**
   * Runs `work` holding the lock, across processes. `compromised()` turns
   * true if the lock was taken over meanwhile (work that outlived the stale
   * threshold), so a write in progress can refuse to finish. A lock that
   * cannot be taken is a Left; `work` throwing rejects the task (the lock
   * released first), for the caller's I/O wrapper to catch.
   */
  run<A>(work: (compromised: () => boolean) => Promise<A>): TaskEither<string, A>;
  /** Says this process no longer uses the store. */
  close(): Promise<void>;
}

/**
 * The cross-process lock of `path`: proper-lockfile's lock directory
 * (`<path>.lock`), taken over after `staleMs` without an update, as before.
 * And, so that a lock left by a process that died (SIGKILL) is recognised
 * at once: every user of the store registers in `<path>.lock.users` before it
 * first takes the lock (host, pid, process start time). A user that only reads
 * never locks, so never registers: a CLI `list` writes nothing.
 * A lock that this user waits for, while every other registered user is a
 * dead process of this machine, can only be a dead one's: it is removed. So
 * is one that a dead process of this machine says it took: each user writes
 * in its registration the identity of the lock directory it takes, once it
 * has it (a holder that dies before that leaves a lock that waits for the
 * rule before, or for the stale time). A live user's lock is never broken;
 * the breaking itself is serialised by `<path>.lock.break`.
 */
export const createFileLock = (path: string, staleMs: number): FileLock => {
  const lockDir = `${path}.lock`;
  const usersDir = `${lockDir}.users`;
  const breakDir = `${lockDir}.break`;
  const stale = Math.max(staleMs, 2000);
  /** This user and its registration's file, once registered. */
  let registered: Registered | undefined;
  /** Registers this user, once, before its first lock: on disk before any lock it takes (synchronous on purpose). */
  const register = (): Registered => {
    if (registered !== undefined) return registered;
    const self: User = { host: hostname(), pid: process.pid, started: startTimeOf("self") };
    const registration = join(usersDir, `${process.pid}-${randomBytes(4).toString("hex")}.json`);
    mkdirSync(usersDir, { recursive: true, mode: 0o700 });
    writeFileSync(registration, JSON.stringify(self), { mode: 0o600 });
    return (registered = { self, registration });
  };

  /**
   * Whether the lock `identity` can only be a dead process's: every other registered user is a dead process
   * of this machine (their entries are then removed), or the one that took it is.
   */
  const heldByTheDead = async (identity: string): Promise<boolean> => {
    const { self, registration } = register();
    const names = await readdir(usersDir).catch(() => [] as string[]);
    const dead: string[] = [];
    let othersAllDead = true;
    for (const name of names) {
      if (!name.endsWith(".json")) continue; // a registration being rewritten (.tmp)
      const file = join(usersDir, name);
      if (file === registration) continue;
      const user = await readUser(file);
      // An entry being written, or another machine's user (a shared filesystem): it cannot be judged here.
      const isDead = user !== undefined && user.host === self.host && !isAlive(user);
      if (isDead && user.holds === identity) return true;
      if (isDead) dead.push(file);
      else othersAllDead = false;
    }
    if (othersAllDead) await Promise.all(dead.map((file) => unlink(file).catch(() => undefined)));
    return othersAllDead;
  };

  /** Says, in this user's registration, which lock directory it holds now. */
  const claim = async (): Promise<void> => {
    const { self, registration } = register();
    const holds = await lockIdentity(lockDir);
    // Written aside and renamed: a registration cut short by a SIGKILL could not be judged, and its lock would wait for the stale time.
    const next = `${registration}.tmp`;
    await writeFile(next, JSON.stringify({ ...self, ...(holds === undefined ? {} : { holds }) }), { mode: 0o600 })
      .then(() => rename(next, registration))
      .catch(() => undefined);
  };

  // This user's own callers in `run`: with more than one, the lock may be its own (taken or being taken), never to be broken.
  let active = 0;

  /** Removes the lock when nobody alive can hold it. */
  const breakIfOrphaned = async (): Promise<void> => {
    const identity = await lockIdentity(lockDir);
    if (identity === undefined || active > 1 || !(await heldByTheDead(identity))) return;
    try {
      await mkdir(breakDir);
    } catch {
      // Another process is breaking it; a break directory older than a few seconds was left by a dead breaker.
      const age = await stat(breakDir).then(
        (stats) => Date.now() - stats.mtimeMs,
        () => 0,
      );
      if (age > 5_000) await rmdir(breakDir).catch(() => undefined);
      return;
    }
    try {
      // Still the same lock directory: no other breaker or stale takeover replaced it meanwhile.
      if ((await lockIdentity(lockDir)) === identity) await rm(lockDir, { recursive: true, force: true });
    } finally {
      await rmdir(breakDir).catch(() => undefined);
    }
  };

  const acquire =
    (onCompromised: () => void): TaskEither<string, () => Promise<void>> =>
    async () => {
      // Imported at the first lock: proper-lockfile (and graceful-fs, which patches fs when loaded) weighs on the
      // start of every CLI command, and one that only reads never locks.
      const { default: lockfile } = await import("proper-lockfile");
      const giveUpAt = Date.now() + 2 * stale;
      for (let wait = 1; ; wait = Math.min(wait * 1.5, 25)) {
        try {
          const release = await lockfile.lock(path, {
            realpath: false,
            lockfilePath: lockDir,
            stale,
            retries: 0,
            onCompromised,
          });
          await claim();
          return E.right(() => release().catch(() => undefined));
        } catch (error) {
          if (errorCode(error) !== "ELOCKED") return E.left(`cannot take the lock ${lockDir} (${errorCode(error)})`);
          if (Date.now() > giveUpAt)
            return E.left(`cannot take the lock ${lockDir} (held for more than ${2 * stale} ms)`);
        }
        await breakIfOrphaned();
        await pause(wait * (0.5 + Math.random()));
      }
    };

  return {
    run: (work) => async () => {
      try {
        register();
      } catch (error) {
        return E.left(`cannot register in ${usersDir} (${errorCode(error)})`);
      }
      active += 1;
      let compromised = false;
      const release = await acquire(() => {
        // Our critical sections last milliseconds; if the lock was taken from us anyway, the write in progress is refused.
        compromised = true;
      })();
      if (E.isLeft(release)) {
        active -= 1;
        return release;
      }
      try {
        return E.right(await work(() => compromised));
      } finally {
        await release.right();
        active -= 1;
      }
    },
    close: async () => {
      if (registered !== undefined) await unlink(registered.registration).catch(() => undefined);
    },
  };
};
