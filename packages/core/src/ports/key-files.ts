import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { ApiKey } from "../domain/api-key.js";

/** A file as opened: where it really is (links resolved), which file it is (device and inode), and its text. */
export interface OpenedFile {
  readonly realPath: string;
  /** `dev:ino` of the file opened: a hard link or a path swapped while it was read tells here. */
  readonly identity: string;
  readonly text: string;
}

/**
 * The file system as the key reader needs it (core's rules are in `createKeyReader`; `nodeKeyFiles` is Node's).
 * Every failure is a short reason written by the adapter (an errno code, "is not a regular file"), never a file's text.
 */
export interface KeyFiles {
  /** A path with every link resolved. */
  realPath(path: string): TaskEither<string, string>;
  /** Which file a path names (links followed), as `OpenedFile.identity`. */
  identity(path: string): TaskEither<string, string>;
  /**
   * A regular file of at most `maxBytes`, read whole as UTF-8 text, opened without blocking (a FIFO would wait for a
   * writer forever); its real path is checked to be the file opened ("changed while it was read" otherwise).
   */
  read(path: string, maxBytes: number): TaskEither<string, OpenedFile>;
}

/** Reads keys by reference: `read("file:NAME" | "env:NAME")` answers the key, or why not (prefixed with the reference, never the key). */
export interface KeyReader {
  read(reference: string): TaskEither<string, ApiKey>;
}
