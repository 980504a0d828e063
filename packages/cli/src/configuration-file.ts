import { constants, type Stats } from "node:fs";
import { open, readFile, realpath, stat } from "node:fs/promises";
import { resolve as resolvePath, sep } from "node:path";
import {
  invalidInput,
  strictObject,
  toFieldErrors,
  type Connection,
  type ConnectionSummary,
  type DomainError,
  type FieldError,
  type Grant,
  type KeyRenewal,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { loadYaml } from "./yaml.js";

/**
 * Configuration as code: a file of connections whose keys are references, `env:SDWAN_APIKEY_…` (a variable
 * of the CLI's environment) or `file:PATH` (a file holding the key), never the keys themselves.
 *
 * ```yaml
 * connections:
 *   - alias: lab
 *     orchestratorUrl: https://vco.example.net/
 *     apiKey: env:SDWAN_APIKEY_LAB
 *     keyRenewal: auto        # optional (SPEC §12); left out: as stored (off for a new connection)
 * grants:
 *   - subject: group:emea
 *     pattern: emea-*
 *     verb: use
 * ```
 *
 * `grants:` is optional (SPEC §11): without it, `apply` leaves the stored grants alone.
 * A file comes from anyone: its references reach only what is meant to hold keys. A variable must carry
 * the key prefix (never a setting of the service, such as SDWAN_MASTER_KEY); a file must be a small regular
 * file in the one directory the operator named for key files (SDWAN_APIKEY_DIR), links resolved, and outside
 * the data directory. No key may be a master key this CLI knows (the file itself, a hard link, or a copy).
 */
export const KEY_VARIABLE_PREFIX = "SDWAN_APIKEY_";
/** The largest key file read (a key is at most a few hundred bytes). */
export const KEY_FILE_MAX_BYTES = 16 * 1024;
/** The largest configuration file read (about 100,000 connections). */
export const CONFIGURATION_FILE_MAX_BYTES = 16 * 1024 * 1024;

const KEY_REFERENCE = /^(env:[A-Za-z_][A-Za-z0-9_]*|file:.+)$/;
const KeyReference = new t.Type<string, string, unknown>(
  "KeyReference",
  (input): input is string => typeof input === "string" && KEY_REFERENCE.test(input),
  (input, context) =>
    typeof input === "string" && KEY_REFERENCE.test(input)
      ? t.success(input)
      : t.failure(
          input,
          context,
          `must be a reference, env:${KEY_VARIABLE_PREFIX}NAME or file:PATH (a key itself never goes in the file)`,
        ),
  (reference) => reference,
);
// One entry per field of a connection: a new field does not compile until the file format has it.
// `apiKeyExpiresAt` and `keyRenewal` are optional (as in a request body): an entry without them is as before.
const entryProps = {
  alias: t.string,
  orchestratorUrl: t.string,
  apiKey: KeyReference,
  apiKeyExpiresAt: t.union([t.string, t.undefined]),
  keyRenewal: t.union([t.string, t.undefined]),
} satisfies Record<keyof Connection, t.Mixed>;
const Entry = strictObject("ConfigurationEntry", entryProps, t.type(entryProps));
const fileProps = { connections: t.array(t.unknown), grants: t.union([t.array(t.unknown), t.undefined]) };
const ConfigurationFile = strictObject("ConfigurationFile", fileProps, t.type(fileProps));

/** A configuration file read: its connections, keys resolved, and its `grants:` list (core decodes each) when it has one. */
export interface ConfigurationRead {
  readonly connections: readonly Record<string, string>[];
  readonly grants: readonly unknown[] | undefined;
}

type Entry = t.TypeOf<typeof Entry>;

/**
 * The environment variable `export` names for a connection's key: the prefix and the alias in upper case,
 * each character other than a letter or digit as `_` and its two hex digits (`a.b` → `A_2EB`, `a-b` → `A_2DB`),
 * so distinct aliases (aliases match in any case) never share a variable.
 */
export const keyVariable = (alias: string): string =>
  `${KEY_VARIABLE_PREFIX}${alias.toUpperCase().replace(/[^A-Z0-9]/g, (character) => `_${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)}`;

/**
 * The connections and grants as a configuration file (YAML, or JSON), each key a reference to `keyVariable(alias)`,
 * `keyRenewal: auto` where it is on;
 * no grants (none stored, or the user may not list them) leave the list out, so that `apply` leaves the grants
 * alone, and a store without grants exports as before.
 */
export const exportConfiguration = async (
  connections: readonly (ConnectionSummary & { readonly keyRenewal?: KeyRenewal })[],
  grants: readonly Grant[] | undefined,
  format: "yaml" | "json",
): Promise<string> => {
  const document = {
    connections: connections.map(({ alias, orchestratorUrl, keyRenewal }) => ({
      alias,
      orchestratorUrl,
      apiKey: `env:${keyVariable(alias)}`,
      // Only when on: off is every connection's default, and an export of connections without renewal is as before.
      ...(keyRenewal === "auto" ? { keyRenewal } : {}),
    })),
    ...(grants === undefined || grants.length === 0
      ? {}
      : { grants: grants.map(({ subject, pattern, verb }) => ({ subject, pattern, verb })) }),
  };
  return format === "json" ? `${JSON.stringify(document, null, 2)}\n` : (await loadYaml()).stringify(document);
};

const fieldErrors = (errors: t.Errors, prefix: string): FieldError[] =>
  toFieldErrors(errors, "file").map((error) => ({
    ...error,
    field: error.field === "file" ? prefix || "--file" : `${prefix}${prefix === "" ? "" : "."}${error.field}`,
  }));

const isWithin = (path: string, directory: string): boolean =>
  path === directory || path.startsWith(directory.endsWith(sep) ? directory : `${directory}${sep}`);

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? "error";

/**
 * Reads a whole file that must be regular and at most `maxBytes` long, as text. Opened without blocking
 * (a FIFO would wait for a writer forever) and checked on the open handle (what was opened is what is read):
 * `check`, when given, is asked about the opened file and answers what is wrong with it, if anything.
 */
const readRegularFile =
  (
    path: string,
    maxBytes: number,
    check?: (opened: Stats) => Promise<string | undefined>,
  ): TaskEither<string, string> =>
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
      const problem = await check?.(opened);
      if (problem !== undefined) return E.left(problem);
      // Read one byte past the cap: a file that grew since fstat is refused too.
      const buffer = Buffer.alloc(maxBytes + 1);
      const { bytesRead } = await handle.read(buffer, 0, maxBytes + 1, 0);
      return bytesRead > maxBytes
        ? E.left(`is larger than ${maxBytes} bytes`)
        : E.right(buffer.subarray(0, bytesRead).toString("utf8"));
    } catch (error) {
      return E.left(`cannot be read (${errorCode(error)})`);
    } finally {
      await handle.close();
    }
  };

/** Where key references may read, and what no key may be. */
export interface KeySources {
  /** The environment, read once, for `env:` references. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** SDWAN_APIKEY_DIR: the one directory `file:` references read (a relative name is in it); undefined refuses them. */
  readonly keyDir: string | undefined;
  /** The data directory (the store, the master key file), which no reference reaches. */
  readonly dataDir: string;
  /** The data directory's master key file, read here (never created): no key file may be it, a link to it, or a copy. */
  readonly masterKeyFile: string;
  /** The master keys this CLI was given (SDWAN_MASTER_KEY, SDWAN_MASTER_KEY_PREVIOUS): no key may be one. */
  readonly masterKeys: readonly Buffer[];
}

/** What a reference is checked against, found once per file: the real directories, the master key file's identity, every master key known. */
interface Guard {
  readonly keyDir: E.Either<string, string>;
  readonly dataDir: string;
  readonly masterKeyFile: Stats | undefined;
  readonly masterKeys: readonly Buffer[];
}

// The bytes a key's text may stand for: its base64 decoding (how master.key and SDWAN_MASTER_KEY write a master key) or its hex one.
const keyBytes = (text: string): Buffer[] => [Buffer.from(text.trim(), "base64"), Buffer.from(text.trim(), "hex")];

const guardOf = async (sources: KeySources): Promise<Guard> => {
  const dataDir = await realpath(sources.dataDir).catch(() => resolvePath(sources.dataDir));
  // Read, never created: a dry run creates nothing.
  const masterKeyFile = await stat(sources.masterKeyFile).catch(() => undefined);
  const ownKey =
    masterKeyFile === undefined
      ? []
      : keyBytes(await readFile(sources.masterKeyFile, "utf8").catch(() => "")).filter((bytes) => bytes.length === 32);
  const { keyDir } = sources;
  return {
    keyDir:
      keyDir === undefined
        ? E.left("file: references are refused until SDWAN_APIKEY_DIR names the one directory key files are read from")
        : await realpath(keyDir).then(E.right, (error: unknown) =>
            E.left(`SDWAN_APIKEY_DIR (${keyDir}) cannot be read (${errorCode(error)})`),
          ),
    dataDir,
    masterKeyFile,
    masterKeys: [...sources.masterKeys, ...ownKey],
  };
};

// Whether a key is one of the master keys written as text (a copy of master.key, SDWAN_MASTER_KEY's value).
const isMasterKey = (key: string, guard: Guard): boolean =>
  keyBytes(key).some((bytes) => guard.masterKeys.some((masterKey) => masterKey.equals(bytes)));

// Where a key file opened by `path` really is (links resolved; the same file that was opened): in the key directory, not the data directory, not the master key.
const placeOfKeyFile =
  (path: string, keyDir: string, guard: Guard) =>
  async (opened: Stats): Promise<string | undefined> => {
    const real = await realpath(path);
    const same = await stat(real);
    if (same.ino !== opened.ino || same.dev !== opened.dev) return "changed while it was read";
    if (isWithin(real, guard.dataDir))
      return "is in the data directory (SDWAN_DATA_DIR), which holds the service's own secrets";
    if (
      guard.masterKeyFile !== undefined &&
      opened.ino === guard.masterKeyFile.ino &&
      opened.dev === guard.masterKeyFile.dev
    )
      return "is the data directory's master key (a hard link to it)";
    if (!isWithin(real, keyDir))
      return `is outside SDWAN_APIKEY_DIR (${keyDir}), the one directory key files are read from`;
    return undefined;
  };

// Whether a reference names a key variable that is not set.
const isUnsetKeyVariable = (reference: string, env: KeySources["env"]): boolean =>
  reference.startsWith(`env:${KEY_VARIABLE_PREFIX}`) && (env[reference.slice(4)] ?? "") === "";

// A key reference's value: a key variable that is set, or a key file; a line break ending the file is not the key's.
const referencedKey =
  (reference: string, env: KeySources["env"], guard: Guard): TaskEither<string, string> =>
  async () => {
    if (reference.startsWith("env:")) {
      const name = reference.slice(4);
      if (!name.startsWith(KEY_VARIABLE_PREFIX))
        return E.left(
          `${reference}: only variables named ${KEY_VARIABLE_PREFIX}… hold keys (never a setting of the service)`,
        );
      return isUnsetKeyVariable(reference, env)
        ? E.left(`${reference}: the variable is not set`)
        : E.right(env[name] as string);
    }
    if (E.isLeft(guard.keyDir)) return E.left(`${reference}: ${guard.keyDir.left}`);
    const path = resolvePath(guard.keyDir.right, reference.slice(5));
    const read = await readRegularFile(path, KEY_FILE_MAX_BYTES, placeOfKeyFile(path, guard.keyDir.right, guard))();
    return E.bimap(
      (problem: string) => `${reference}: ${problem}`,
      (text: string) => text.replace(/\r?\n$/, ""),
    )(read);
  };

// A key reference's value, unless it is a master key.
const resolveReference =
  (reference: string, env: KeySources["env"], guard: Guard): TaskEither<string, string> =>
  async () => {
    const key = await referencedKey(reference, env, guard)();
    if (E.isRight(key) && isMasterKey(key.right, guard))
      return E.left(`${reference}: is a master key of this deployment, never an apiKey`);
    return key;
  };

/** Parses a configuration file's text: JSON quickly when it is JSON, YAML otherwise (JSON is YAML too). */
const parseDocument =
  (text: string): TaskEither<string, unknown> =>
  async () => {
    if (/^\s*[[{]/.test(text)) {
      try {
        return E.right(JSON.parse(text) as unknown);
      } catch {
        // Not JSON after all (a YAML flow mapping): YAML says where.
      }
    }
    const YAML = await loadYaml();
    try {
      // Errors only: yaml's warnings (an unknown tag, say) quote the text around them, which may hold a key.
      return E.right(YAML.parse(text, { logLevel: "error" }) as unknown);
    } catch (error) {
      // yaml's messages quote the text around a syntax error: only where it is.
      return E.left(
        `is not valid YAML or JSON${error instanceof YAML.YAMLParseError ? ` near line ${error.linePos?.[0]?.line ?? "?"}` : ""}`,
      );
    }
  };

/**
 * Reads a configuration file (YAML or JSON, a regular file of at most 16 MiB), decodes it and resolves every
 * key reference: the connections as core's `planConfiguration` takes them (each with its `keySource`, the
 * reference) and its `grants:` list, or InvalidInput naming each bad place (never a value). Two connections may not share a
 * reference: each has its own key. An unset key variable leaves its entry without `apiKey` (the plan then
 * finds it unchanged, its key not checked, or says a key is needed), unless `requireKeys`.
 */
export const readConfiguration =
  (
    path: string,
    sources: KeySources,
    options: { readonly requireKeys?: boolean } = {},
  ): TaskEither<DomainError, ConfigurationRead> =>
  async () => {
    const text = await readRegularFile(path, CONFIGURATION_FILE_MAX_BYTES)();
    const document = E.isLeft(text) ? text : await parseDocument(text.right)();
    if (E.isLeft(document)) return E.left(invalidInput([{ field: "--file", message: document.left }]));
    const file = ConfigurationFile.decode(document.right);
    if (E.isLeft(file)) return E.left(invalidInput(fieldErrors(file.left, "")));
    const errors: FieldError[] = [];
    const connections: Record<string, string>[] = [];
    const firstUse = new Map<string, number>();
    const guard = await guardOf(sources);
    for (const [index, raw] of file.right.connections.entries()) {
      const entry: E.Either<t.Errors, Entry> = Entry.decode(raw);
      if (E.isLeft(entry)) {
        errors.push(...fieldErrors(entry.left, `connections.${index}`));
        continue;
      }
      const earlier = firstUse.get(entry.right.apiKey);
      if (earlier !== undefined) {
        errors.push({
          field: `connections.${index}.apiKey`,
          message: `is the reference of connections.${earlier} too: each connection has its own key`,
        });
        continue;
      }
      firstUse.set(entry.right.apiKey, index);
      if (options.requireKeys !== true && isUnsetKeyVariable(entry.right.apiKey, sources.env)) {
        connections.push({
          alias: entry.right.alias,
          orchestratorUrl: entry.right.orchestratorUrl,
          keySource: entry.right.apiKey,
        });
        continue;
      }
      const apiKey = await resolveReference(entry.right.apiKey, sources.env, guard)();
      if (E.isLeft(apiKey)) errors.push({ field: `connections.${index}.apiKey`, message: apiKey.left });
      else {
        const { apiKeyExpiresAt, keyRenewal, ...named } = entry.right;
        connections.push({
          ...named,
          ...(apiKeyExpiresAt === undefined ? {} : { apiKeyExpiresAt }),
          ...(keyRenewal === undefined ? {} : { keyRenewal }),
          apiKey: apiKey.right,
          keySource: entry.right.apiKey,
        });
      }
    }
    return errors.length === 0 ? E.right({ connections, grants: file.right.grants }) : E.left(invalidInput(errors));
  };
