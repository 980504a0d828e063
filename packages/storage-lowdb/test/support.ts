import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DomainError } from "@sdwan-connections/core";
import { createKeyring, masterKey, type Keyring } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { openConnectionsFile, type ConnectionsFile, type OpenConnectionsFileOptions } from "../src/connections-file.js";
import { describeConnectionsFileError } from "../src/errors.js";

export const MASTER_KEY = Buffer.alloc(32, 0x5a);
export const OTHER_MASTER_KEY = Buffer.alloc(32, 0xa5);
export const keyringOf = (key: Buffer = MASTER_KEY, previous: Buffer[] = []): Keyring =>
  createKeyring({ current: masterKey(key), previous: previous.map(masterKey) });

export const temporaryDirectory = async (): Promise<{ path: string; [Symbol.asyncDispose](): Promise<void> }> => {
  const path = await mkdtemp(join(tmpdir(), "sdwan-lowdb-"));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
};

/** Opens the store or throws with the operator's message. */
export const openOrThrow = async (
  options: Partial<OpenConnectionsFileOptions> & { dataDir: string },
): Promise<ConnectionsFile> => {
  const opened = await openConnectionsFile({ keyring: keyringOf(), lockStaleMs: 2000, ...options })();
  if (E.isLeft(opened)) throw new Error(describeConnectionsFileError(opened.left));
  return opened.right;
};

export const run = async <A>(task: TaskEither<DomainError, A>): Promise<A> => {
  const result = await task();
  if (E.isLeft(result)) throw new Error(`expected success, got ${JSON.stringify(result.left)}`);
  return result.right;
};
