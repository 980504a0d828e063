import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { open, rename, unlink, type FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * Replaces `path` with `bytes` atomically and durably, the one way every file of the data directory is rewritten:
 * a temporary file beside it (`.NAME.PID.RANDOM.tmp`, mode 0600, what the connections file's first write removes when its
 * writer died), written, fdatasync'ed (the data and the size needed to read it back: all a new file needs before its
 * rename), then renamed over `path` once `ready` settles (not at all if it rejects; the temporary file is removed
 * on any failure). Answers the new version's handle, still open (kept, its inode is not reused while it is the
 * version in memory; else the caller closes it), and its stats, which the rename keeps. The fsync of the directory,
 * which makes the rename itself durable, is the caller's.
 */
export const replaceDurably = async (
  path: string,
  bytes: Uint8Array | string,
  ready?: Promise<unknown>,
): Promise<{ readonly handle: FileHandle; readonly stats: Stats }> => {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const handle = await open(temporary, "wx", 0o600);
  try {
    const buffer = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
    // One write call (FileHandle.writeFile would cut 4 MB into 8 calls of 512 KiB, each a trip to the thread pool).
    for (let offset = 0; offset < buffer.length;) {
      const { bytesWritten } = await handle.write(buffer, offset, buffer.length - offset, offset);
      if (bytesWritten === 0) throw Object.assign(new Error("short write"), { code: "EIO" });
      offset += bytesWritten;
    }
    await handle.datasync();
    const stats = await handle.stat();
    await ready;
    await rename(temporary, path);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
};
