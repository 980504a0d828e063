import {
  createKeyReader,
  invalidInput,
  KEY_VARIABLE_PREFIX,
  nodeKeyFiles,
  readRegularFile,
  repeatedName,
  type KeySources as CoreKeySources,
  strictObject,
  toFieldErrors,
  type Connection,
  type ConnectionSummary,
  type DomainError,
  type FieldError,
  type Grant,
  type KeyRenewal,
  type ApiKey,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { loadYaml, parseFailure } from "./yaml.js";

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
/** The largest configuration file read (about 100,000 connections). */
export const CONFIGURATION_FILE_MAX_BYTES = 16 * 1024 * 1024;

const KEY_REFERENCE = /^(env:[A-Za-z_][A-Za-z0-9_]*|file:.+)$/;
const isKeyReference = (input: unknown): input is string => typeof input === "string" && KEY_REFERENCE.test(input);
const KeyReference = new t.Type<string, string, unknown>(
  "KeyReference",
  isKeyReference,
  (input, context) =>
    isKeyReference(input)
      ? t.success(input)
      : t.failure(
          input,
          context,
          `must be a reference, env:${KEY_VARIABLE_PREFIX}NAME or file:PATH (a key itself never goes in the file)`,
        ),
  t.identity,
);
// One entry per field of a connection: a new field does not compile until the file format has it.
// `apiKeyExpiresAt` is optional (as in a request body): an entry without it is as before.
// `apiKeyRef` (SPEC §12) is where the service reads the key, passed on as written: the CLI reads nothing for it.
const entryProps = {
  alias: t.string,
  orchestratorUrl: t.string,
  apiKey: t.union([KeyReference, t.undefined]),
  apiKeyExpiresAt: t.union([t.string, t.undefined]),
  keyRenewal: t.union([t.keyof({ auto: null, off: null }), t.undefined]),
  apiKeyRef: t.union([t.string, t.undefined]),
} satisfies Record<keyof Connection, t.Mixed>;
const Entry = strictObject("ConfigurationEntry", entryProps, t.type(entryProps));
const fileProps = { connections: t.array(t.unknown), grants: t.union([t.array(t.unknown), t.undefined]) };
const ConfigurationFile = strictObject("ConfigurationFile", fileProps, t.type(fileProps));

/** A configuration file read: its connections, keys resolved, and its `grants:` list (core decodes each) when it has one. */
export interface ConfigurationRead {
  readonly connections: readonly Record<string, string>[];
  readonly grants: readonly unknown[] | undefined;
}

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
    // A key kept elsewhere is exported as where it is kept (SPEC §12), never read: the list names it on a local store.
    connections: connections.map(({ alias, orchestratorUrl, keyRenewal, apiKeyRef }) => ({
      alias,
      orchestratorUrl,
      ...(apiKeyRef === undefined ? { apiKey: `env:${keyVariable(alias)}` } : { apiKeyRef }),
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

/** Where key references may read, and what no key may be: core's rules (`createKeyReader`), the same as the service's `apiKeyRef`. */
export type KeySources = CoreKeySources;

// The fields given (a connection's fields left out of the file are not passed on as undefined).
const defined = (fields: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).filter((field): field is [string, string] => field[1] !== undefined));

// Whether a reference names a key variable that is not set.
const isUnsetKeyVariable = (reference: string, env: KeySources["env"]): boolean =>
  reference.startsWith(`env:${KEY_VARIABLE_PREFIX}`) && (env[reference.slice(4)] ?? "") === "";

// A line of the form `export` writes: a top-level key (with `[]`: an empty list), a list's item, or an item's next key,
// each value a plain scalar that YAML's core schema reads as its very text (a letter first, no space or `#`, no `:` last).
const EXPORTED_LINE =
  /^(?:([A-Za-z]\w*):( \[\])?| {2}(- | {2})([A-Za-z]\w*): ([A-Za-z](?:[\w.~:/?=&%+@*-]*[\w.~/?=&%+@*-])?))$/;
const RESERVED = /^(?:null|true|false)$/i;

// The form `export` writes, read line by line: yaml's document model took 4-13 s for 100,000 connections, JSON.parse
// 0.2 s (issue 40). Anything else answers undefined, for yaml; what it answers is yaml's answer (the spec compares).
export const parseExportedForm = (text: string): Record<string, Record<string, string>[]> | undefined => {
  const document: Record<string, Record<string, string>[]> = {};
  let list: Record<string, string>[] | undefined;
  let entry: Record<string, string> | undefined;
  for (const line of text.endsWith("\n") ? text.slice(0, -1).split("\n") : [""]) {
    const [, name, empty, item, key = "", value = ""] = EXPORTED_LINE.exec(line) ?? [];
    // A key without items is null in YAML.
    if (list?.length === 0 && item === undefined) return undefined;
    if (name !== undefined) {
      if (RESERVED.test(name) || name in document) return undefined;
      const items: Record<string, string>[] = (document[name] = []);
      [list, entry] = [empty === undefined ? items : undefined, undefined];
    } else if (item === "- " && list !== undefined) list.push((entry = {}));
    else if (item !== "  " || entry === undefined) return undefined;
    if (entry !== undefined && item !== undefined) {
      if (RESERVED.test(key) || RESERVED.test(value) || key in entry) return undefined;
      entry[key] = value;
    }
  }
  return list?.length === 0 ? undefined : document;
};

/** Parses a configuration file's text: as `export` writes it or JSON quickly, YAML otherwise (JSON is YAML too). */
const parseDocument =
  (text: string): TaskEither<string, unknown> =>
  async () => {
    // JSON that does not parse (a YAML flow mapping, say), or that names a field twice (JSON.parse would keep the last
    // silently), is left to YAML, which says where.
    const quick =
      parseExportedForm(text) ??
      (/^\s*[[{]/.test(text) && repeatedName(text) === undefined
        ? E.toUnion(E.parseJSON(text, () => undefined))
        : undefined);
    if (quick !== undefined) return E.right(quick);
    const YAML = await loadYaml();
    try {
      // Errors only: yaml's warnings (an unknown tag, say) quote the text around them, which may hold a key.
      return E.right(YAML.parse(text, { logLevel: "error" }) as unknown);
    } catch (error) {
      return E.left(parseFailure(YAML, error, "YAML or JSON"));
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
    const document = E.isLeft(text) ? text : await parseDocument(text.right.text)();
    if (E.isLeft(document)) return E.left(invalidInput([{ field: "--file", message: document.left }]));
    const file = ConfigurationFile.decode(document.right);
    if (E.isLeft(file)) return E.left(invalidInput(fieldErrors(file.left, "")));
    const errors: FieldError[] = [];
    const connections: Record<string, string>[] = [];
    const firstUse = new Map<string, number>();
    const keys = createKeyReader(nodeKeyFiles, sources, { lookOnce: true });
    for (const [index, raw] of file.right.connections.entries()) {
      const entry = Entry.decode(raw);
      if (E.isLeft(entry)) {
        errors.push(...fieldErrors(entry.left, `connections.${index}`));
        continue;
      }
      const { alias, orchestratorUrl, apiKeyExpiresAt, keyRenewal, apiKey: reference, apiKeyRef } = entry.right;
      if (apiKeyRef !== undefined && reference === undefined) {
        connections.push(defined({ alias, orchestratorUrl, apiKeyExpiresAt, apiKeyRef, keySource: apiKeyRef }));
        continue;
      }
      const earlier = reference === undefined || apiKeyRef !== undefined ? undefined : firstUse.get(reference);
      if (reference === undefined || apiKeyRef !== undefined || earlier !== undefined) {
        errors.push({
          field: `connections.${index}.apiKey`,
          message:
            earlier === undefined
              ? "give apiKey (a reference the CLI reads) or apiKeyRef (where the service reads the key), one of them"
              : `is the reference of connections.${earlier} too: each connection has its own key`,
        });
        continue;
      }
      firstUse.set(reference, index);
      if (options.requireKeys !== true && isUnsetKeyVariable(reference, sources.env)) {
        connections.push({ alias, orchestratorUrl, keySource: reference });
        continue;
      }
      const apiKey = E.map((key: ApiKey) => key.reveal())(await keys.read(reference)());
      if (E.isLeft(apiKey)) errors.push({ field: `connections.${index}.apiKey`, message: apiKey.left });
      else
        connections.push(
          defined({ alias, orchestratorUrl, apiKeyExpiresAt, keyRenewal, apiKey: apiKey.right, keySource: reference }),
        );
    }
    return errors.length === 0 ? E.right({ connections, grants: file.right.grants }) : E.left(invalidInput(errors));
  };
