import { readFile } from "node:fs/promises";
import { invalidInput, strictObject, toFieldErrors, type ConnectionSummary, type DomainError, type FieldError } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import YAML from "yaml";

/**
 * Configuration as code: a file of connections whose keys are references, `env:NAME` (a variable of the
 * CLI's environment) or `file:PATH` (a file holding the key), never the keys themselves.
 *
 * ```yaml
 * connections:
 *   - alias: lab
 *     orchestratorUrl: https://vco.example.net/
 *     apiKey: env:SDWAN_APIKEY_LAB
 * ```
 */
const KEY_REFERENCE = /^(env:[A-Za-z_][A-Za-z0-9_]*|file:.+)$/;
const KeyReference = new t.Type<string, string, unknown>(
  "KeyReference",
  (input): input is string => typeof input === "string" && KEY_REFERENCE.test(input),
  (input, context) =>
    typeof input === "string" && KEY_REFERENCE.test(input)
      ? t.success(input)
      : t.failure(input, context, "must be a reference, env:NAME or file:PATH (a key itself never goes in the file)"),
  (reference) => reference,
);
const entryProps = { alias: t.string, orchestratorUrl: t.string, apiKey: KeyReference };
const Entry = strictObject("ConfigurationEntry", entryProps, t.type(entryProps));
const fileProps = { connections: t.array(t.unknown) };
const ConfigurationFile = strictObject("ConfigurationFile", fileProps, t.type(fileProps));

type Entry = t.TypeOf<typeof Entry>;

/** The environment variable `export` names for a connection's key: SDWAN_APIKEY_ and the alias, upper case, `_` for the rest. */
export const keyVariable = (alias: string): string => `SDWAN_APIKEY_${alias.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;

/** The connections as a configuration file (YAML, or JSON), each key a reference to `keyVariable(alias)`. */
export const exportConfiguration = (connections: readonly ConnectionSummary[], format: "yaml" | "json"): string => {
  const document = { connections: connections.map(({ alias, orchestratorUrl }) => ({ alias, orchestratorUrl, apiKey: `env:${keyVariable(alias)}` })) };
  return format === "json" ? `${JSON.stringify(document, null, 2)}\n` : YAML.stringify(document);
};

const fieldErrors = (errors: t.Errors, prefix: string): FieldError[] =>
  toFieldErrors(errors, "file").map((error) => ({ ...error, field: error.field === "file" ? prefix || "file" : `${prefix}${prefix === "" ? "" : "."}${error.field}` }));

// A key reference's value: the variable must be set, the file readable; a line break ending the file is not the key's.
const resolve = async (reference: string, env: Readonly<Record<string, string | undefined>>): Promise<E.Either<string, string>> => {
  if (reference.startsWith("env:")) {
    const value = env[reference.slice(4)];
    return value === undefined || value === "" ? E.left(`${reference}: the variable is not set`) : E.right(value);
  }
  return readFile(reference.slice(5), "utf8").then(
    (text) => E.right(text.replace(/\r?\n$/, "")),
    (error: NodeJS.ErrnoException) => E.left(`${reference}: cannot be read (${error.code ?? "error"})`),
  );
};

/**
 * Reads a configuration file (YAML; JSON is YAML too), decodes it and resolves every key reference: the
 * connections as core's `planConfiguration` takes them, or InvalidInput naming each bad place (never a value).
 */
export const readConfiguration = async (path: string, env: Readonly<Record<string, string | undefined>>): Promise<E.Either<DomainError, readonly Record<string, string>[]>> => {
  let document: unknown;
  try {
    document = YAML.parse(await readFile(path, "utf8"));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // yaml's messages quote the text around a syntax error: only where it is.
    const where = error instanceof YAML.YAMLParseError ? ` near line ${error.linePos?.[0]?.line ?? "?"}` : "";
    return E.left(invalidInput([{ field: "file", message: code === undefined ? `is not valid YAML or JSON${where}` : `cannot be read (${code})` }]));
  }
  const file = ConfigurationFile.decode(document);
  if (E.isLeft(file)) return E.left(invalidInput(fieldErrors(file.left, "")));
  const errors: FieldError[] = [];
  const connections: Record<string, string>[] = [];
  for (const [index, raw] of file.right.connections.entries()) {
    const entry: E.Either<t.Errors, Entry> = Entry.decode(raw);
    if (E.isLeft(entry)) {
      errors.push(...fieldErrors(entry.left, `connections.${index}`));
      continue;
    }
    const apiKey = await resolve(entry.right.apiKey, env);
    if (E.isLeft(apiKey)) errors.push({ field: `connections.${index}.apiKey`, message: apiKey.left });
    else connections.push({ ...entry.right, apiKey: apiKey.right });
  }
  return errors.length === 0 ? E.right(connections) : E.left(invalidInput(errors));
};
