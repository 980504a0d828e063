import { open, readFile, type FileHandle } from "node:fs/promises";
import { invalidStored, storageFailure, type DomainError } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type * as t from "io-ts";

/**
 * Why the connections file cannot be used. Messages name the file and what is
 * wrong with it, never a value read from it (which might be a key pasted by hand).
 */
export type ConnectionsFileError =
  | { readonly _tag: "FileUnreadable"; readonly path: string; readonly reason: string }
  | { readonly _tag: "FileCorrupt"; readonly path: string; readonly reason: string }
  | { readonly _tag: "FutureVersion"; readonly path: string; readonly version: number; readonly supported: number }
  | {
      readonly _tag: "WrongMasterKey";
      readonly path: string;
      readonly unknownKeyIds: readonly string[];
      readonly knownKeyIds: readonly string[];
    }
  | { readonly _tag: "FileMissing"; readonly path: string };

/** One line an operator can act on; safe to log. */
export const describeConnectionsFileError = (error: ConnectionsFileError): string => {
  switch (error._tag) {
    case "FileUnreadable":
      return `Cannot read the connections file ${error.path}: ${error.reason}.`;
    case "FileCorrupt":
      return `The connections file ${error.path} is corrupt (${error.reason}); it was left untouched. Restore it from a backup or move it away to start empty.`;
    case "FutureVersion":
      return `The connections file ${error.path} has schema version ${error.version}, newer than the ${error.supported} this version understands; it was left untouched. Run a newer sdwan-connections.`;
    case "WrongMasterKey":
      return (
        `The connections file ${error.path} holds apiKeys sealed with master key id(s) ${error.unknownKeyIds.join(", ")}, ` +
        `but the configured key id(s) are ${error.knownKeyIds.join(", ")}: wrong master key. Set SDWAN_MASTER_KEY (or restore master.key) ` +
        `to the key the file was written with, or list it in SDWAN_MASTER_KEY_PREVIOUS.`
      );
    case "FileMissing":
      return `The connections file ${error.path} disappeared while in use; it is not recreated empty so that nothing is lost silently.`;
  }
};

/** An exception carrying a ConnectionsFileError through code that throws (the lowdb adapter). */
export class ConnectionsFileFailure extends Error {
  constructor(readonly error: ConnectionsFileError) {
    super(describeConnectionsFileError(error));
    this.name = "ConnectionsFileFailure";
  }
}

/** The code of a Node.js system error (ENOENT, EACCES…), for messages that name no value. */
export const errorCode = (error: unknown): string =>
  (error as NodeJS.ErrnoException | undefined)?.code ?? "unknown error";

/** `path` opened for reading, or undefined when there is no such file. */
export const openIfPresent = (path: string): Promise<FileHandle | undefined> =>
  open(path, "r").catch((error: unknown) => (errorCode(error) === "ENOENT" ? undefined : Promise.reject(error)));

/** `work` over `path` opened for reading, the file closed after it; `absent` when there is no such file. */
export const readingIfPresent = async <A>(
  path: string,
  absent: A,
  work: (handle: FileHandle) => Promise<A>,
): Promise<A> => {
  const handle = await openIfPresent(path);
  if (handle === undefined) return absent;
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
};

/** The bytes of `path`, none when there is no such file. */
export const readIfPresent = (path: string): Promise<Buffer> =>
  readFile(path).catch((error: unknown) => (errorCode(error) === "ENOENT" ? Buffer.alloc(0) : Promise.reject(error)));

/** A file of the data directory that failed while doing `what` (`reading health.json`): the error's message, never data. */
export const failedWhile = (what: string, error: unknown): DomainError =>
  storageFailure(`Storage failure while ${what}: ${error instanceof Error ? error.message : String(error)}.`);

/** The text of the file `name` parsed and decoded: what is wrong named, never a value read; `advice`, what to do. */
export const decodeStoredJson = <A>(
  name: string,
  text: string,
  codec: t.Decoder<unknown, A>,
  advice?: string,
): E.Either<DomainError, A> => {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return E.left(storageFailure(`Storage failure: ${name} is not JSON${advice === undefined ? "" : `; ${advice}`}.`));
  }
  return E.mapLeft((errors: t.Errors) => invalidStored(name, errors, "file", advice))(codec.decode(json));
};
