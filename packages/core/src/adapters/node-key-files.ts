import { constants } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { KeyFiles, OpenedFile } from "../ports/key-files.js";

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? "error";
const identityOf = (stats: { readonly dev: number; readonly ino: number }): string => `${stats.dev}:${stats.ino}`;

/**
 * Reads a whole file that must be regular and at most `maxBytes` long, as text, opened without blocking and checked
 * on the open handle (what was opened is what is read); `realPath` is where the path led when it was opened.
 */
export const readRegularFile =
  (path: string, maxBytes: number): TaskEither<string, OpenedFile> =>
  async () => {
    let handle;
    try {
      handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    } catch (error) {
      return E.left(`cannot be read (${errorCode(error)})`);
    }
    try {
      const opened = await handle.stat();
      if (!opened.isFile()) return E.left("is not a regular file");
      if (opened.size > maxBytes) return E.left(`is larger than ${maxBytes} bytes`);
      const real = await realpath(path);
      // A link swapped between the open and the realpath (Kubernetes' `..data` swap): read it again later.
      if (identityOf(await stat(real)) !== identityOf(opened)) return E.left("changed while it was read");
      // Read one byte past the cap: a file that grew since fstat is refused too.
      const buffer = Buffer.alloc(maxBytes + 1);
      const { bytesRead } = await handle.read(buffer, 0, maxBytes + 1, 0);
      return bytesRead > maxBytes
        ? E.left(`is larger than ${maxBytes} bytes`)
        : E.right({
            realPath: real,
            identity: identityOf(opened),
            text: buffer.subarray(0, bytesRead).toString("utf8"),
          });
    } catch (error) {
      return E.left(`cannot be read (${errorCode(error)})`);
    } finally {
      await handle.close();
    }
  };

/** The key files on this machine's file system. */
export const nodeKeyFiles: KeyFiles = {
  realPath: (path) => () => realpath(path).then(E.right, (error: unknown) => E.left(errorCode(error))),
  identity: (path) => () =>
    stat(path).then(
      (stats) => E.right(identityOf(stats)),
      (error: unknown) => E.left(errorCode(error)),
    ),
  read: readRegularFile,
};
