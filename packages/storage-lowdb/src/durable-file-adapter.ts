import { statSync, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { sealedKeyId, type Keyring } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import type { Adapter } from "lowdb";
import { replaceDurably } from "./durable-write.js";
import { ConnectionsFileFailure, errorCode, type ConnectionsFileError } from "./errors.js";
import { parseConnectionsFile, serializedLength, serializeInto, type ConnectionsState } from "./file-format.js";

/** Which file version is in memory. Its handle stays open so the inode cannot be reused by a later file. */
interface KnownVersion {
  readonly handle: FileHandle;
  readonly ino: number;
  readonly dev: number;
  readonly size: number;
  readonly mtimeMs: number;
}

const sameVersion = (known: KnownVersion | undefined, current: Stats): boolean =>
  known !== undefined &&
  known.ino === current.ino &&
  known.dev === current.dev &&
  known.size === current.size &&
  known.mtimeMs === current.mtimeMs;

const versionOf = (handle: FileHandle, stats: Stats): KnownVersion => ({
  handle,
  ino: stats.ino,
  dev: stats.dev,
  size: stats.size,
  mtimeMs: stats.mtimeMs,
});

/** A file whose apiKeys were sealed with keys this keyring does not hold is a wrong master key, not corruption. */
const checkKeyIds = (path: string, state: ConnectionsState, keyring: Keyring): ConnectionsFileError | undefined => {
  const known = new Set(keyring.keyIds);
  const unknown = new Set<string>();
  for (const connection of state.connections.values()) {
    if (connection.sealedApiKey === undefined) continue;
    const keyId = sealedKeyId(connection.sealedApiKey);
    if (!known.has(keyId)) unknown.add(keyId);
  }
  return unknown.size === 0
    ? undefined
    : { _tag: "WrongMasterKey", path, unknownKeyIds: [...unknown].sort(), knownKeyIds: keyring.keyIds };
};

/**
 * lowdb's `Adapter` for the connections file, used through `Low`: `read`
 * decodes and checks the file (keeping the handle it read through, so its
 * inode is not reused while it is the version in memory); `write` replaces it
 * durably: a temporary file, fdatasync, rename, and (`syncDirectory`) fsync
 * of the directory. It is lowdb's I/O boundary, so it reports what it cannot
 * use by throwing a ConnectionsFileFailure, which the connections file turns
 * back into a value.
 */
export class DurableFileAdapter implements Adapter<ConnectionsState> {
  known: KnownVersion | undefined;
  #existed = false;
  #directory: FileHandle | undefined;
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
      // Missing before it was ever read or written: a first start (null, lowdb keeps its default). Missing later: lost.
      if (errorCode(error) === "ENOENT" && !this.#existed) return null;
      if (errorCode(error) === "ENOENT") throw new ConnectionsFileFailure({ _tag: "FileMissing", path: this.path });
      throw new ConnectionsFileFailure({ _tag: "FileUnreadable", path: this.path, reason: errorCode(error) });
    }
    let keep = false;
    try {
      // Stats and text come from the same handle, so they describe the same version even if a rename happens meanwhile.
      const stats = await handle.stat();
      if (!stats.isFile())
        throw new ConnectionsFileFailure({ _tag: "FileUnreadable", path: this.path, reason: "not a regular file" });
      const text = await handle.readFile("utf8");
      const parsed = parseConnectionsFile(text, this.path);
      if (E.isLeft(parsed)) throw new ConnectionsFileFailure(parsed.left);
      const wrongKey = checkKeyIds(this.path, parsed.right, this.keyring);
      if (wrongKey !== undefined) throw new ConnectionsFileFailure(wrongKey);
      this.#retire(this.known);
      this.known = versionOf(handle, stats);
      this.#existed = true;
      keep = true;
      return parsed.right;
    } catch (error) {
      if (error instanceof ConnectionsFileFailure) throw error;
      throw new ConnectionsFileFailure({ _tag: "FileUnreadable", path: this.path, reason: errorCode(error) });
    } finally {
      if (!keep) await handle.close();
    }
  }

  #renameAfter: Promise<void> | undefined;

  /** The next write renames its file over the store only once `ready` settles, and not at all if it fails. */
  renameAfter(ready: Promise<void>): void {
    this.#renameAfter = ready;
  }

  async write(state: ConnectionsState): Promise<void> {
    const ready = this.#renameAfter;
    this.#renameAfter = undefined;
    const length = serializedLength(state);
    if (this.#scratch.length < length) this.#scratch = Buffer.allocUnsafe(Math.ceil(length * 1.25));
    const bytes = serializeInto(state, this.#scratch.subarray(0, length));
    const { handle, stats } = await replaceDurably(this.path, bytes, ready);
    // Closing the replaced version frees its blocks (~2 ms for 4 MB): done beside the directory fsync, not before it.
    this.#retire(this.known);
    this.known = versionOf(handle, stats);
    this.#existed = true;
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
