import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import {
  decodeKeyText,
  isMasterKeyText,
  KEY_FILE_MAX_BYTES,
  KEY_VARIABLE_PREFIX,
  keyReferenceOf,
  masterKeysIn,
} from "../domain/key-reference.js";
import type { KeyFiles, KeyReader } from "../ports/key-files.js";

export type { KeyReader } from "../ports/key-files.js";

/** Where key references may read, and what no key may be. */
export interface KeySources {
  /** The environment, for `env:` references. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** SDWAN_APIKEY_DIR: the one directory `file:` references read (a relative name is in it); undefined refuses them. */
  readonly keyDir: string | undefined;
  /** The data directory (the store, the master key file), which no reference reaches. */
  readonly dataDir: string;
  /** The data directory's master key file, read here (never created): no key file may be it, a link to it, or a copy. */
  readonly masterKeyFile: string;
  /** The master keys configured (SDWAN_MASTER_KEY, SDWAN_MASTER_KEY_PREVIOUS): no key may be one, in any encoding. */
  readonly masterKeys: readonly Uint8Array[];
}

const isWithin = (path: string, directory: string): boolean =>
  path === directory || path.startsWith(directory.endsWith("/") ? directory : `${directory}/`);

// A path inside `directory` when relative (a reference's NAME); an absolute one is judged by where it really is.
const join = (directory: string, name: string): string =>
  name.startsWith("/") ? name : `${directory.endsWith("/") ? directory : `${directory}/`}${name}`;

/**
 * The one implementation of the key references' rules (SPEC §12), for the service's `apiKeyRef` and the CLI's
 * configuration files alike. A variable must carry the key prefix. A file's real path (every link resolved, the
 * path read being the file opened) must be inside SDWAN_APIKEY_DIR and outside the data directory, and it must
 * not be the master key file (a hard link to it). No key may be, or decode (base64, hex) to, a master key.
 * The directories and the master key file are looked at on every read (a mount or a generated key that appears later
 * is seen), or with `lookOnce` at the first: a file's references are read at one moment (issue 40: 3 calls each).
 */
export const createKeyReader = (files: KeyFiles, sources: KeySources, { lookOnce = false } = {}): KeyReader => {
  const guard = async () => {
    const dataDir = await files.realPath(sources.dataDir)();
    const masterKeyFile = await files.identity(sources.masterKeyFile)();
    const ownText = E.isRight(masterKeyFile)
      ? await files.read(sources.masterKeyFile, KEY_FILE_MAX_BYTES)()
      : undefined;
    const keyDir = sources.keyDir;
    return {
      keyDir:
        keyDir === undefined
          ? E.left(
              "file: references are refused until SDWAN_APIKEY_DIR names the one directory key files are read from",
            )
          : E.mapLeft((code: string) => `SDWAN_APIKEY_DIR (${keyDir}) cannot be read (${code})`)(
              await files.realPath(keyDir)(),
            ),
      dataDir: E.isRight(dataDir) ? dataDir.right : sources.dataDir,
      masterKeyFile: E.isRight(masterKeyFile) ? masterKeyFile.right : undefined,
      masterKeys: [
        ...sources.masterKeys,
        ...(ownText !== undefined && E.isRight(ownText) ? masterKeysIn(ownText.right.text) : []),
      ],
    };
  };
  type Guard = Awaited<ReturnType<typeof guard>>;
  let looked: Promise<Guard> | undefined;
  const look = (): Promise<Guard> => (lookOnce ? (looked ??= guard()) : guard());

  const fileText =
    (name: string, checked: Guard): TaskEither<string, string> =>
    async () => {
      if (E.isLeft(checked.keyDir)) return checked.keyDir;
      const keyDir = checked.keyDir.right;
      const read = await files.read(join(keyDir, name), KEY_FILE_MAX_BYTES)();
      if (E.isLeft(read)) return read;
      const { realPath, identity, text } = read.right;
      if (isWithin(realPath, checked.dataDir))
        return E.left("is in the data directory (SDWAN_DATA_DIR), which holds the service's own secrets");
      if (identity === checked.masterKeyFile) return E.left("is the data directory's master key (a hard link to it)");
      if (!isWithin(realPath, keyDir))
        return E.left(`is outside SDWAN_APIKEY_DIR (${keyDir}), the one directory key files are read from`);
      return E.right(text);
    };

  return {
    read: (reference) => async () => {
      const { kind, name } = keyReferenceOf(reference);
      const checked = await look();
      let text: E.Either<string, string>;
      if (kind === "env") {
        text = !name.startsWith(KEY_VARIABLE_PREFIX)
          ? E.left(`only variables named ${KEY_VARIABLE_PREFIX}… hold keys (never a setting of the service)`)
          : (sources.env[name] ?? "") === ""
            ? E.left("the variable is not set")
            : E.right(sources.env[name] as string);
      } else text = await fileText(name, checked)();
      const key = E.flatMap((value: string) =>
        isMasterKeyText(value, checked.masterKeys)
          ? E.left("is a master key of this deployment, never an apiKey")
          : decodeKeyText(value),
      )(text);
      return E.mapLeft((problem: string) => `${reference}: ${problem}`)(key);
    },
  };
};
