import { randomBytes } from "node:crypto";
import { open, readFile, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import {
  IsoTimeCodec,
  storageFailure,
  toFieldErrors,
  type DomainError,
  type ServiceToken,
  type ServiceTokenStore,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { errorCode } from "./errors.js";
import { createSerialQueue } from "./group-commit.js";
import { createFileLock, type FileLock } from "./lock.js";

/** Name of the service tokens' file inside the data directory. */
export const TOKENS_FILE = "tokens.json";

/** How old the tokens in memory may be before a lookup reads the file again, even when it looks unchanged. */
const MAX_AGE_MS = 1_000;

const EntryCodec = t.intersection([
  t.type({
    id: t.string,
    name: t.string,
    role: t.keyof({ admin: null, viewer: null }),
    lifetimeDays: t.number,
    expiresAt: IsoTimeCodec,
    lastUsedAt: t.union([IsoTimeCodec, t.null]),
    createdBy: t.string,
    createdAt: IsoTimeCodec,
    /** SHA-256 of the current secret (never the secret). */
    hash: t.string,
  }),
  /** After a renewal: the secret before it, working until `until`. */
  t.partial({ previous: t.type({ hash: t.string, until: IsoTimeCodec }) }),
]);
type Entry = t.TypeOf<typeof EntryCodec>;
const TokensFileCodec = t.type({ tokens: t.array(EntryCodec) });

const tokenOf = ({ hash: _hash, previous: _previous, ...token }: Entry): ServiceToken => token;

export interface LowdbServiceTokenStoreOptions {
  /** The data directory, as for `openConnectionsFile`. */
  readonly dataDir: string;
  /** As `openConnectionsFile`'s: after how long a dead process's lock is taken over (ms). */
  readonly lockStaleMs?: number;
}

/**
 * Service tokens in `tokens.json` beside `connections.json`, shared by every process over the data directory.
 * A lookup reads the file again when a `stat` shows another process replaced it, or when what is in memory is
 * older than a second, so a revocation is seen by every process within one. A change reads the file under a
 * cross-process lock of its own, then replaces it atomically (temporary file, fdatasync, rename).
 */
export const createLowdbServiceTokenStore = ({
  dataDir,
  lockStaleMs = 10_000,
}: LowdbServiceTokenStoreOptions): ServiceTokenStore & { close(): Promise<void> } => {
  const path = join(dataDir, TOKENS_FILE);
  const serially = createSerialQueue();
  let lock: FileLock | undefined;
  let entries: Entry[] = [];
  // Each working secret's hash, current or previous, to its entry: a lookup is one map read.
  let byHash = new Map<string, Entry>();
  const remember = (next: Entry[]): Entry[] => {
    entries = next;
    byHash = new Map(
      next.flatMap((entry) => [
        [entry.hash, entry] as const,
        ...(entry.previous === undefined ? [] : [[entry.previous.hash, entry] as const]),
      ]),
    );
    return next;
  };
  let loaded: { readonly version: string; readonly at: number } | undefined;

  const failure = (what: string, error: unknown) =>
    storageFailure(
      `Storage failure while ${what} ${TOKENS_FILE}: ${error instanceof Error ? error.message : String(error)}.`,
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

  /** The tokens as on disk now: read again unless the file is the version in memory, read less than a second ago. */
  const refresh: TaskEither<DomainError, Entry[]> = async () => {
    const version = await versionOnDisk();
    if (loaded?.version === version && Date.now() - loaded.at < MAX_AGE_MS) return E.right(entries);
    const text =
      version === "absent"
        ? '{"tokens":[]}'
        : await readFile(path, "utf8").catch((error: unknown) =>
            errorCode(error) === "ENOENT" ? '{"tokens":[]}' : Promise.reject(error),
          );
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return E.left(storageFailure(`Storage failure: ${TOKENS_FILE} is not JSON.`));
    }
    const decoded = TokensFileCodec.decode(json);
    if (E.isLeft(decoded)) {
      const fields = toFieldErrors(decoded.left, "tokens").map((error) => `${error.field} ${error.message}`);
      return E.left(storageFailure(`Storage failure: ${TOKENS_FILE} is not a tokens file (${fields.join("; ")}).`));
    }
    loaded = { version, at: Date.now() };
    return E.right(remember(decoded.right.tokens));
  };

  const write = async (next: Entry[]): Promise<void> => {
    const temporary = `${path}.${process.pid}.${randomBytes(3).toString("hex")}.tmp`;
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(JSON.stringify(TokensFileCodec.encode({ tokens: next })));
      await handle.datasync();
    } catch (error) {
      await handle.close();
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await handle.close();
    await rename(temporary, path);
    remember(next);
    loaded = undefined; // the next lookup takes the new file's version
  };

  const read =
    <A>(
      what: string,
      answer: (current: readonly Entry[], index: ReadonlyMap<string, Entry>) => A,
    ): TaskEither<DomainError, A> =>
    async () => {
      try {
        return E.map((current: readonly Entry[]) => answer(current, byHash))(await serially(refresh));
      } catch (error) {
        return E.left(failure(what, error));
      }
    };

  /** One change under the lock: `next` is the tokens after it (undefined: nothing changes), with the caller's answer. */
  const change =
    <A>(
      what: string,
      next: (current: readonly Entry[]) => { readonly tokens?: Entry[]; readonly answer: A },
    ): TaskEither<DomainError, A> =>
    async () => {
      const done = await serially(() =>
        (lock ??= createFileLock(path, lockStaleMs)).run(async () => {
          const current = await refresh();
          if (E.isLeft(current)) return current;
          const { tokens, answer } = next(current.right);
          if (tokens !== undefined) await write(tokens);
          return E.right(answer);
        })(),
      ).catch((error: unknown) => E.left(error instanceof Error ? error.message : String(error)));
      return E.isLeft(done) ? E.left(failure(what, done.left)) : done.right;
    };

  return {
    create: (token, hash) =>
      change("writing", (current) =>
        current.some((entry) => entry.name === token.name)
          ? { answer: false }
          : { tokens: [...current, { ...token, hash }], answer: true },
      ),
    list: () => read("reading", (current) => current.map(tokenOf)),
    find: (hash, now) =>
      read("reading", (_current, index) => {
        const entry = index.get(hash);
        const proved =
          entry !== undefined &&
          (entry.hash === hash ? now < entry.expiresAt : entry.previous !== undefined && now < entry.previous.until);
        return proved ? tokenOf(entry) : undefined;
      }),
    renew: (id, { hash, expiresAt, previousUntil }) =>
      change("writing", (current) => {
        const entry = current.find((one) => one.id === id);
        if (entry === undefined) return { answer: undefined };
        const renewed: Entry = { ...entry, hash, expiresAt, previous: { hash: entry.hash, until: previousUntil } };
        return { tokens: current.map((one) => (one.id === id ? renewed : one)), answer: tokenOf(renewed) };
      }),
    revoke: (id) =>
      change("writing", (current) =>
        current.some((one) => one.id === id)
          ? { tokens: current.filter((one) => one.id !== id), answer: true }
          : { answer: false },
      ),
    touch: (id, at) =>
      change("writing", (current) =>
        current.some((one) => one.id === id)
          ? { tokens: current.map((one) => (one.id === id ? { ...one, lastUsedAt: at } : one)), answer: undefined }
          : { answer: undefined },
      ),
    close: async () => {
      await serially(async () => undefined);
      await lock?.close();
    },
  };
};
