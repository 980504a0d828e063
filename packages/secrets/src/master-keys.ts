import { link, mkdir, open, readFile, stat, unlink } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import type * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { MASTER_KEY_BYTES, masterKey, type MasterKey } from "./keyring.js";

export const MASTER_KEY_VARIABLE = "SDWAN_MASTER_KEY";
export const PREVIOUS_MASTER_KEYS_VARIABLE = "SDWAN_MASTER_KEY_PREVIOUS";
/** Name of the generated key file inside the data directory. */
export const MASTER_KEY_FILE = "master.key";

// Standard base64 of exactly 32 bytes: 43 characters and one '=' of padding.
const BASE64_32_BYTES = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/**
 * A master key as text: the standard base64 of exactly 32 bytes (surrounding
 * whitespace ignored, e.g. a file's final newline). Failures never echo the value.
 */
export const MasterKeyCodec = new t.Type<MasterKey, string, unknown>(
  "MasterKey",
  (u): u is MasterKey => typeof u === "object" && u !== null && "id" in u && "key" in u,
  (input, context) => {
    if (typeof input !== "string") return t.failure(input, context, "must be a string");
    const text = input.trim();
    if (!BASE64_32_BYTES.test(text)) {
      return t.failure(
        undefined,
        context,
        `must be the base64 encoding of exactly ${MASTER_KEY_BYTES} bytes (e.g. \`openssl rand -base64 32\`)`,
      );
    }
    return t.success(masterKey(Buffer.from(text, "base64")));
  },
  (value) => value.key.toString("base64"),
);

/** Why the master keys could not be loaded. Messages name variables and paths, never key material. */
export type MasterKeyError =
  | { readonly _tag: "InvalidMasterKeyVariable"; readonly variable: string; readonly reason: string }
  | { readonly _tag: "MasterKeyFileInvalid"; readonly path: string; readonly reason: string }
  | { readonly _tag: "MasterKeyFileUnavailable"; readonly path: string; readonly reason: string };

export const describeMasterKeyError = (error: MasterKeyError): string => {
  switch (error._tag) {
    case "InvalidMasterKeyVariable":
      return `${error.variable} ${error.reason}.`;
    case "MasterKeyFileInvalid":
      return `The master key file ${error.path} ${error.reason}.`;
    case "MasterKeyFileUnavailable":
      return `The master key file ${error.path} cannot be used: ${error.reason}.`;
  }
};

export interface MasterKeys {
  readonly current: MasterKey;
  readonly previous: readonly MasterKey[];
  /** Where the current key came from. */
  readonly source: "env" | "file";
  /** True when this call created the key file (first start). */
  readonly generated: boolean;
}

export interface LoadMasterKeysOptions {
  /** The current key, e.g. SDWAN_MASTER_KEY decoded with `MasterKeyCodec`; when not given, the data directory's key file. */
  readonly current?: MasterKey | undefined;
  /** Older keys that still open stored apiKeys, e.g. SDWAN_MASTER_KEY_PREVIOUS decoded with `PreviousMasterKeysCodec`. */
  readonly previous?: readonly MasterKey[];
  /** The data directory (SDWAN_DATA_DIR), where `master.key` lives when no current key is given. */
  readonly dataDir: string;
}

const reasonOf = (errors: t.Errors): string => errors[0]?.message ?? "is not a valid master key";

/** Older master keys as text: comma-separated `MasterKeyCodec` keys, blanks ignored. A failure names the entry, never its value. */
export const PreviousMasterKeysCodec = new t.Type<readonly MasterKey[], string, unknown>(
  "PreviousMasterKeys",
  (u): u is readonly MasterKey[] => Array.isArray(u) && u.every((key) => MasterKeyCodec.is(key)),
  (input, context) => {
    if (typeof input !== "string") return t.failure(input, context, "must be a string");
    const items = input
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
    const keys: MasterKey[] = [];
    for (const [index, item] of items.entries()) {
      const decoded = MasterKeyCodec.decode(item);
      if (E.isLeft(decoded)) return t.failure(undefined, context, `entry ${index + 1} ${reasonOf(decoded.left)}`);
      keys.push(decoded.right);
    }
    return t.success(keys);
  },
  (keys) => keys.map((key) => MasterKeyCodec.encode(key)).join(","),
);

/**
 * The master keys in the environment, decoded once: `SDWAN_MASTER_KEY` (unset or blank: none) and
 * `SDWAN_MASTER_KEY_PREVIOUS`, ready for `loadMasterKeys`. For embedders without a configuration of their own.
 */
export const decodeMasterKeyVariables = (
  env: Readonly<Record<string, string | undefined>>,
): E.Either<MasterKeyError, { readonly current: MasterKey | undefined; readonly previous: readonly MasterKey[] }> => {
  const invalid =
    (variable: string) =>
    (errors: t.Errors): MasterKeyError => ({ _tag: "InvalidMasterKeyVariable", variable, reason: reasonOf(errors) });
  const previous = E.mapLeft(invalid(PREVIOUS_MASTER_KEYS_VARIABLE))(
    PreviousMasterKeysCodec.decode(env[PREVIOUS_MASTER_KEYS_VARIABLE] ?? ""),
  );
  if (E.isLeft(previous)) return previous;
  const current = env[MASTER_KEY_VARIABLE];
  if (current === undefined || current.trim() === "") return E.right({ current: undefined, previous: previous.right });
  return E.bimap(invalid(MASTER_KEY_VARIABLE), (key: MasterKey) => ({ current: key, previous: previous.right }))(
    MasterKeyCodec.decode(current),
  );
};

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException | undefined)?.code ?? "unknown error";

/** Creates `path` holding a fresh key, unless another process won the race; never overwrites. */
const generateKeyFile = async (path: string): Promise<boolean> => {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const handle = await open(temporary, "wx", 0o600);
  try {
    await handle.writeFile(`${randomBytes(MASTER_KEY_BYTES).toString("base64")}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    // link() publishes the complete file or fails with EEXIST: a concurrent first start never sees half a key.
    await link(temporary, path);
    return true;
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
};

const loadKeyFile =
  (dataDir: string): TE.TaskEither<MasterKeyError, { key: MasterKey; generated: boolean }> =>
  async () => {
    const path = join(dataDir, MASTER_KEY_FILE);
    let generated = false;
    try {
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      generated = await generateKeyFileIfMissing(path);
      const mode = (await stat(path)).mode & 0o777;
      if ((mode & 0o077) !== 0) {
        return E.left({
          _tag: "MasterKeyFileInvalid",
          path,
          reason: `is readable or writable by other users (mode 0${mode.toString(8)}); run \`chmod 600 ${path}\``,
        });
      }
      const decoded = MasterKeyCodec.decode(await readFile(path, "utf8"));
      if (E.isLeft(decoded)) {
        return E.left({ _tag: "MasterKeyFileInvalid", path, reason: reasonOf(decoded.left) });
      }
      return E.right({ key: decoded.right, generated });
    } catch (error) {
      return E.left({ _tag: "MasterKeyFileUnavailable", path, reason: errorCode(error) });
    }
  };

const generateKeyFileIfMissing = async (path: string): Promise<boolean> => {
  try {
    await stat(path);
    return false;
  } catch (error) {
    if (errorCode(error) !== "ENOENT") throw error;
    return generateKeyFile(path);
  }
};

/**
 * The master keys: the `current` one given, or else `<dataDir>/master.key`, generated (mode 0600, directory
 * 0700) on first start; the `previous` ones still decrypt until a rotation re-seals everything with the current one.
 */
export const loadMasterKeys =
  ({ current, previous = [], dataDir }: LoadMasterKeysOptions): TE.TaskEither<MasterKeyError, MasterKeys> =>
  async () => {
    if (current !== undefined) return E.right({ current, previous, source: "env", generated: false });
    const fromFile = await loadKeyFile(dataDir)();
    if (E.isLeft(fromFile)) return fromFile;
    return E.right({ current: fromFile.right.key, previous, source: "file", generated: fromFile.right.generated });
  };
