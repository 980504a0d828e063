import { constants } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import { resolve as resolvePath, sep } from "node:path";
import { invalidInput, strictObject, toFieldErrors, type ConnectionSummary, type DomainError, type FieldError } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";

// YAML is loaded when a file is read or written: the other commands start without it.
const loadYaml = async () => (await import("yaml")).default;

/**
 * Configuration as code: a file of connections whose keys are references, `env:SDWAN_APIKEY_…` (a variable
 * of the CLI's environment) or `file:PATH` (a file holding the key), never the keys themselves.
 *
 * ```yaml
 * connections:
 *   - alias: lab
 *     orchestratorUrl: https://vco.example.net/
 *     apiKey: env:SDWAN_APIKEY_LAB
 * ```
 *
 * A file comes from anyone: its references reach only what is meant to hold keys. A variable must carry
 * the key prefix (never a setting of the service, such as SDWAN_MASTER_KEY); a file must be a regular
 * file, small, and outside the data directory (where the master key lives).
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
      : t.failure(input, context, `must be a reference, env:${KEY_VARIABLE_PREFIX}NAME or file:PATH (a key itself never goes in the file)`),
  (reference) => reference,
);
const entryProps = { alias: t.string, orchestratorUrl: t.string, apiKey: KeyReference };
const Entry = strictObject("ConfigurationEntry", entryProps, t.type(entryProps));
const fileProps = { connections: t.array(t.unknown) };
const ConfigurationFile = strictObject("ConfigurationFile", fileProps, t.type(fileProps));

type Entry = t.TypeOf<typeof Entry>;

/**
 * The environment variable `export` names for a connection's key: the prefix and the alias in upper case,
 * each character other than a letter or digit as `_` and its two hex digits (`a.b` → `A_2EB`, `a-b` → `A_2DB`),
 * so distinct aliases (aliases match in any case) never share a variable.
 */
export const keyVariable = (alias: string): string =>
  `${KEY_VARIABLE_PREFIX}${alias.toUpperCase().replace(/[^A-Z0-9]/g, (character) => `_${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)}`;

/** The connections as a configuration file (YAML, or JSON), each key a reference to `keyVariable(alias)`. */
export const exportConfiguration = async (connections: readonly ConnectionSummary[], format: "yaml" | "json"): Promise<string> => {
  const document = { connections: connections.map(({ alias, orchestratorUrl }) => ({ alias, orchestratorUrl, apiKey: `env:${keyVariable(alias)}` })) };
  return format === "json" ? `${JSON.stringify(document, null, 2)}\n` : (await loadYaml()).stringify(document);
};

const fieldErrors = (errors: t.Errors, prefix: string): FieldError[] =>
  toFieldErrors(errors, "file").map((error) => ({ ...error, field: error.field === "file" ? prefix || "--file" : `${prefix}${prefix === "" ? "" : "."}${error.field}` }));

const isWithin = (path: string, directory: string): boolean => path === directory || path.startsWith(directory.endsWith(sep) ? directory : `${directory}${sep}`);

/**
 * Reads a whole file that must be regular and at most `maxBytes` long, as text. Opened without blocking
 * (a FIFO would wait for a writer forever) and checked on the open handle (what was opened is what is read);
 * `within`, when given, is a directory the file must not be in (its real path, links resolved).
 */
const readRegularFile =
  (path: string, maxBytes: number, notWithin?: string): TaskEither<string, string> =>
  async () => {
    let handle;
    try {
      handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
    } catch (error) {
      return E.left(`cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
    try {
      const opened = await handle.stat();
      if (!opened.isFile()) return E.left("is not a regular file");
      if (opened.size > maxBytes) return E.left(`is larger than ${maxBytes} bytes`);
      if (notWithin !== undefined) {
        const real = await realpath(path);
        const directory = await realpath(notWithin).catch(() => resolvePath(notWithin));
        const same = await stat(real);
        if (isWithin(real, directory) || same.ino !== opened.ino || same.dev !== opened.dev) return E.left("is in the data directory (SDWAN_DATA_DIR), which holds the service's own secrets");
      }
      // Read one byte past the cap: a file that grew since fstat is refused too.
      const buffer = Buffer.alloc(maxBytes + 1);
      const { bytesRead } = await handle.read(buffer, 0, maxBytes + 1, 0);
      return bytesRead > maxBytes ? E.left(`is larger than ${maxBytes} bytes`) : E.right(buffer.subarray(0, bytesRead).toString("utf8"));
    } catch (error) {
      return E.left(`cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    } finally {
      await handle.close();
    }
  };

// A key reference's value: a key variable that is set, or a key file; a line break ending the file is not the key's.
const resolveReference =
  (reference: string, env: Readonly<Record<string, string | undefined>>, dataDir: string): TaskEither<string, string> =>
  async () => {
    if (reference.startsWith("env:")) {
      const name = reference.slice(4);
      if (!name.startsWith(KEY_VARIABLE_PREFIX)) return E.left(`${reference}: only variables named ${KEY_VARIABLE_PREFIX}… hold keys (never a setting of the service)`);
      const value = env[name];
      return value === undefined || value === "" ? E.left(`${reference}: the variable is not set`) : E.right(value);
    }
    const read = await readRegularFile(reference.slice(5), KEY_FILE_MAX_BYTES, dataDir)();
    return E.bimap(
      (problem: string) => `${reference}: ${problem}`,
      (text: string) => text.replace(/\r?\n$/, ""),
    )(read);
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
      return E.right(YAML.parse(text) as unknown);
    } catch (error) {
      // yaml's messages quote the text around a syntax error: only where it is.
      return E.left(`is not valid YAML or JSON${error instanceof YAML.YAMLParseError ? ` near line ${error.linePos?.[0]?.line ?? "?"}` : ""}`);
    }
  };

/**
 * Reads a configuration file (YAML or JSON, a regular file of at most 16 MiB), decodes it and resolves every
 * key reference: the connections as core's `planConfiguration` takes them, or InvalidInput naming each bad
 * place (never a value). Two connections may not share a reference: each has its own key.
 */
export const readConfiguration =
  (path: string, env: Readonly<Record<string, string | undefined>>, dataDir: string): TaskEither<DomainError, readonly Record<string, string>[]> =>
  async () => {
    const text = await readRegularFile(path, CONFIGURATION_FILE_MAX_BYTES)();
    const document = E.isLeft(text) ? text : await parseDocument(text.right)();
    if (E.isLeft(document)) return E.left(invalidInput([{ field: "--file", message: document.left }]));
    const file = ConfigurationFile.decode(document.right);
    if (E.isLeft(file)) return E.left(invalidInput(fieldErrors(file.left, "")));
    const errors: FieldError[] = [];
    const connections: Record<string, string>[] = [];
    const firstUse = new Map<string, number>();
    for (const [index, raw] of file.right.connections.entries()) {
      const entry: E.Either<t.Errors, Entry> = Entry.decode(raw);
      if (E.isLeft(entry)) {
        errors.push(...fieldErrors(entry.left, `connections.${index}`));
        continue;
      }
      const earlier = firstUse.get(entry.right.apiKey);
      if (earlier !== undefined) {
        errors.push({ field: `connections.${index}.apiKey`, message: `is the reference of connections.${earlier} too: each connection has its own key` });
        continue;
      }
      firstUse.set(entry.right.apiKey, index);
      const apiKey = await resolveReference(entry.right.apiKey, env, dataDir)();
      if (E.isLeft(apiKey)) errors.push({ field: `connections.${index}.apiKey`, message: apiKey.left });
      else connections.push({ ...entry.right, apiKey: apiKey.right });
    }
    return errors.length === 0 ? E.right(connections) : E.left(invalidInput(errors));
  };
