import { open, unlink, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { errorCode } from "./errors.js";

/** The file the readiness check writes, syncs and removes in the data directory. */
export const WRITE_PROBE_FILE = ".write-probe";
// One block: on a full disk a new file's first block cannot be allocated.
const PROBE_BYTES = 4096;

/**
 * Whether a new file can be written and synced in `dir` now: what a full
 * disk, a read-only mount or a lost permission fails (even for root, which
 * a permission check alone would not tell). Answers are reused for `ttlMs`,
 * so that a readiness endpoint polled often stays cheap; the error is an
 * errno code.
 */
export const createWriteProbe = (dir: string, ttlMs = 1_000): TaskEither<string, void> => {
  const path = join(dir, WRITE_PROBE_FILE);
  const probe: TaskEither<string, void> = async () => {
    let handle: FileHandle | undefined;
    try {
      handle = await open(path, "w", 0o600);
      await handle.write(Buffer.alloc(PROBE_BYTES));
      await handle.sync();
      return E.right(undefined);
    } catch (error) {
      return E.left(errorCode(error));
    } finally {
      await handle?.close().catch(() => undefined);
      await unlink(path).catch(() => undefined);
    }
  };
  // The last probe's answer, under way or settled: the callers of the next ttlMs share it.
  let last: { readonly at: number; readonly answer: ReturnType<typeof probe> } | undefined;
  return () => {
    const now = Date.now();
    if (last === undefined || now - last.at >= ttlMs) last = { at: now, answer: probe() };
    return last.answer;
  };
};
