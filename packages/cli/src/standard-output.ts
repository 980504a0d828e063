import { fstatSync, writeSync } from "node:fs";
import type { OutputStream } from "./cli.js";

/**
 * Standard output written straight to its descriptor when it is a pipe, a socket or a file, as Node itself writes
 * them on Linux (synchronously). `process.stdout` on a pipe or a socket is a net.Socket: made, it loads node:net and
 * its streams, which was 8% of a `list`'s instructions (issue 40). A terminal or another character device, a
 * descriptor that refuses to wait (EAGAIN: handed over non-blocking) and what follows it go to `process.stdout`.
 * A failed write ends the process as `process.stdout`'s error did: 0 for a reader gone (`| head`), else 1.
 */
export const standardOutput = (
  fd = 1,
  stream: () => NodeJS.WriteStream = () => process.stdout,
): OutputStream & { end(done: () => void): void } => {
  let direct: boolean | undefined;
  const isDirect = (): boolean => {
    if (direct === undefined) {
      try {
        const stats = fstatSync(fd);
        direct = stats.isFIFO() || stats.isSocket() || stats.isFile();
      } catch {
        direct = false;
      }
      if (!direct) stream().on("error", failed);
    }
    return direct;
  };
  const failed = (error: NodeJS.ErrnoException): never => process.exit(error.code === "EPIPE" ? 0 : 1);
  return {
    get isTTY() {
      return isDirect() ? false : stream().isTTY;
    },
    get columns() {
      return isDirect() ? undefined : stream().columns;
    },
    write: (text: string): boolean => {
      if (!isDirect()) return stream().write(text);
      const bytes = Buffer.from(text);
      let written = 0;
      try {
        while (written < bytes.length) written += writeSync(fd, bytes, written);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EAGAIN") return failed(error as NodeJS.ErrnoException);
        direct = false;
        stream().on("error", failed);
        return stream().write(bytes.subarray(written));
      }
      return true;
    },
    once: (event, listener) => (isDirect() ? undefined : stream().once(event, listener)),
    // What `process.stdout` was given is flushed before the exit (a pipe is asynchronous where Node makes it so).
    end: (done) => (direct === false ? stream().write("", done) : done()),
  };
};
