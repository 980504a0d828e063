import { randomBytes } from "node:crypto";
import { open, readFile, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { AliasCodec, aliasKey, IsoTimeCodec, storageFailure, toFieldErrors, withCheck, type ConnectionHealth, type DomainError, type HealthLedger } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { errorCode } from "./errors.js";
import { createGroupCommit, createSerialQueue } from "./group-commit.js";
import { createFileLock, type FileLock } from "./lock.js";

/** Name of the health states' file inside the data directory. */
export const HEALTH_FILE = "health.json";

const Outcome = t.keyof({ valid: null, invalid: null, unreachable: null });
const HealthFileCodec = t.type({
  /** Per alias key (lower case): the connection's health. */
  connections: t.record(
    t.string,
    t.type({
      alias: AliasCodec,
      state: t.union([Outcome, t.literal("unknown")]),
      since: t.union([IsoTimeCodec, t.null]),
      checks: t.readonlyArray(t.type({ at: IsoTimeCodec, outcome: Outcome, latencyMs: t.number, reason: t.union([t.string, t.null]) })),
    }),
  ),
  /** Per alias key: the last interval claimed for a background check. */
  claims: t.record(t.string, t.number),
});
type HealthFile = t.TypeOf<typeof HealthFileCodec>;

const without = <A>(record: Readonly<Record<string, A>>, key: string): Record<string, A> =>
  Object.fromEntries(Object.entries(record).filter(([other]) => other !== key));

const EMPTY: HealthFile = { connections: {}, claims: {} };

/** One change of the file: the file after it (none: unchanged) and what the caller is answered. */
type Change = (file: HealthFile) => { readonly next?: HealthFile; readonly answer: unknown };

export interface LowdbHealthLedgerOptions {
  /** The data directory, as for `openConnectionsFile`. */
  readonly dataDir: string;
  /** As `openConnectionsFile`'s: after how long a dead process's lock is taken over (ms). */
  readonly lockStaleMs?: number;
}

/**
 * Health states in `health.json` beside `connections.json`, so that every process over the data
 * directory (the service, a CLI `validate`) records and reads the same states, and they survive a
 * restart. Each change rewrites the small file atomically (temporary file, fdatasync, rename) under a
 * cross-process lock of its own, changes that arrive meanwhile together in the next write; reads take no
 * lock and decode the file again only when it changed. The
 * lock registers this process only at its first write, so a command that only reads writes nothing.
 */
export const createLowdbHealthLedger = ({ dataDir, lockStaleMs = 10_000 }: LowdbHealthLedgerOptions): HealthLedger & { close(): Promise<void> } => {
  const path = join(dataDir, HEALTH_FILE);
  let lock: FileLock | undefined;
  let cached: { readonly version: string; readonly file: HealthFile } | undefined;

  const failure = (what: string) => (error: unknown) =>
    E.left(storageFailure(`Storage failure while ${what} ${HEALTH_FILE}: ${error instanceof Error ? error.message : String(error)}.`));

  const read: TaskEither<DomainError, HealthFile> = async () => {
    const stats = await stat(path).catch((error: unknown) => (errorCode(error) === "ENOENT" ? undefined : Promise.reject(error)));
    if (stats === undefined) return E.right(EMPTY);
    const version = `${stats.ino}:${stats.size}:${stats.mtimeMs}`;
    if (cached?.version === version) return E.right(cached.file);
    let json: unknown;
    try {
      json = JSON.parse(await readFile(path, "utf8"));
    } catch (error) {
      if (errorCode(error) === "ENOENT") return E.right(EMPTY);
      if (error instanceof SyntaxError) return E.left(storageFailure(`Storage failure: ${HEALTH_FILE} is not JSON; move it away to start every state unknown.`));
      throw error;
    }
    const decoded = HealthFileCodec.decode(json);
    if (E.isLeft(decoded)) {
      const fields = toFieldErrors(decoded.left, "health").map((error) => `${error.field} ${error.message}`);
      return E.left(storageFailure(`Storage failure: ${HEALTH_FILE} is not a health file (${fields.join("; ")}); move it away to start every state unknown.`));
    }
    cached = { version, file: decoded.right };
    return decoded;
  };

  const write = async (file: HealthFile): Promise<void> => {
    const temporary = `${path}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`;
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(JSON.stringify(HealthFileCodec.encode(file)));
      await handle.datasync();
    } catch (error) {
      await handle.close();
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await handle.close();
    await rename(temporary, path);
  };

  // Changes that arrive while a write runs (a background round checks several connections at once) go
  // together in the next one: one read and at most one write, under the lock, for the whole batch.
  const apply = async (batch: readonly Change[]): Promise<readonly E.Either<DomainError, unknown>[]> => {
    const current = await read();
    if (E.isLeft(current)) return batch.map(() => current);
    let file = current.right;
    const answers = batch.map((change) => {
      const { next, answer } = change(file);
      file = next ?? file;
      return E.right(answer);
    });
    if (file !== current.right) await write(file);
    return answers;
  };
  const groupCommit = createGroupCommit<Change>(createSerialQueue(), async (batch) => {
    const done = await (lock ??= createFileLock(path, lockStaleMs)).run(() => apply(batch))().catch((error: unknown) => E.left(error instanceof Error ? error.message : String(error)));
    return E.isLeft(done) ? batch.map(() => failure("writing")(done.left)) : done.right;
  });
  const update = <A>(change: (file: HealthFile) => { readonly next?: HealthFile; readonly answer: A }) => groupCommit.submit<A>(change);

  return {
    claim: (alias, window) =>
      update((file) => {
        const key = aliasKey(alias);
        if ((file.claims[key] ?? -1) >= window) return { answer: false };
        return { next: { ...file, claims: { ...file.claims, [key]: window } }, answer: true };
      }),
    record: (alias, check) =>
      update((file) => {
        const key = aliasKey(alias);
        const before = file.connections[key];
        return { next: { ...file, connections: { ...file.connections, [key]: withCheck(before, alias, check) } }, answer: before?.state ?? "unknown" };
      }),
    forget: (alias) =>
      update((file) => {
        const key = aliasKey(alias);
        if (file.connections[key] === undefined && file.claims[key] === undefined) return { answer: undefined };
        return { next: { connections: without(file.connections, key), claims: without(file.claims, key) }, answer: undefined };
      }),
    list: () => () => read().then((file) => E.map((read: HealthFile): readonly ConnectionHealth[] => Object.values(read.connections))(file), failure("reading")),
    close: async () => {
      await groupCommit.drain();
      await lock?.close();
    },
  };
};
