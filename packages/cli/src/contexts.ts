import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join, resolve as resolvePath } from "node:path";
import { strictObject, toFieldErrors } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import { loadYaml, parseFailure } from "./yaml.js";

/**
 * Contexts, as kubectl has them: named places the CLI works on, one of them current, in the user's
 * configuration directory (`$XDG_CONFIG_HOME/sdwan-connections/config.yaml`, by default `~/.config/…`).
 *
 * ```yaml
 * current-context: prod
 * contexts:
 *   - name: prod                 # a running service, over its REST API
 *     server: https://sdwan.example.net
 *     user: admin
 *     password-file: /home/ops/.config/sdwan-connections/prod.password
 *     ca-file: /etc/ssl/private-ca.pem
 *   - name: lab                  # a local store: a data directory…
 *     data-dir: /srv/sdwan/data
 *   - name: db                   # …or PostgreSQL, its URL in the variable named (never in this file)
 *     postgres-url-env: SDWAN_LAB_DATABASE_URL
 * ```
 *
 * No secret is ever written here: a password or a token is in a file the context names (or typed at a
 * prompt), a database URL in a variable it names.
 */
export const CONTEXTS_FILE = join("sdwan-connections", "config.yaml");

const nonEmpty = new t.Type<string, string, unknown>(
  "non-empty text",
  (input): input is string => typeof input === "string" && input !== "",
  (input, context) =>
    typeof input === "string" && input !== "" ? t.success(input) : t.failure(input, context, "must be non-empty text"),
  (text) => text,
);
const httpUrl = new t.Type<string, string, unknown>(
  "URL",
  (input): input is string => typeof input === "string",
  (input, context) =>
    typeof input === "string" && URL.canParse(input) && /^https?:$/.test(new URL(input).protocol)
      ? t.success(input)
      : t.failure(input, context, "must be an http: or https: URL"),
  (text) => text,
);

const serviceProps = { name: nonEmpty, server: httpUrl };
const serviceOptional = {
  user: nonEmpty,
  "password-file": nonEmpty,
  "token-file": nonEmpty,
  "ca-file": nonEmpty,
  // Set by `login`: the provider, its client and the file of the refresh token (never the token itself).
  "oidc-issuer": nonEmpty,
  "oidc-client-id": nonEmpty,
  "refresh-token-file": nonEmpty,
};
const ServiceContext = strictObject(
  "ServiceContext",
  { ...serviceProps, ...serviceOptional },
  t.intersection([t.type(serviceProps), t.partial(serviceOptional)]),
);
const dataDirProps = { name: nonEmpty, "data-dir": nonEmpty };
const DataDirContext = strictObject("DataDirContext", dataDirProps, t.type(dataDirProps));
const postgresProps = { name: nonEmpty, "postgres-url-env": nonEmpty };
const PostgresContext = strictObject("PostgresContext", postgresProps, t.type(postgresProps));
const AnyContext = t.union([ServiceContext, DataDirContext, PostgresContext]);
// Of the kind its one telling field names, decoded as that kind alone: as a union, each kind's refusals were told
// together (a service context's `server` "not a known field", as a data-dir context saw it).
const KINDS = [
  ["server", ServiceContext],
  ["data-dir", DataDirContext],
  ["postgres-url-env", PostgresContext],
] as const;
const Context = new t.Type<t.TypeOf<typeof AnyContext>, t.TypeOf<typeof AnyContext>, unknown>(
  "Context",
  AnyContext.is,
  (input, context) => {
    const kind = typeof input === "object" && input !== null ? KINDS.find(([field]) => field in input) : undefined;
    return kind === undefined
      ? t.failure(input, context, "needs one of server, data-dir, postgres-url-env")
      : kind[1].validate(input, context);
  },
  t.identity,
);
const fileProps = { "current-context": nonEmpty, contexts: t.array(Context) };
const ContextsFile = strictObject("ContextsFile", fileProps, t.partial(fileProps));

export type Context = t.TypeOf<typeof Context>;
export type ServiceContext = t.TypeOf<typeof ServiceContext>;
export type ContextsFile = t.TypeOf<typeof ContextsFile>;

export const isServiceContext = (context: Context): context is ServiceContext => "server" in context;

/** Where the contexts are: the XDG configuration directory, else ~/.config; undefined when neither variable is set. */
export const contextsPath = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const base = env["XDG_CONFIG_HOME"] || (env["HOME"] ? join(env["HOME"], ".config") : undefined);
  return base === undefined ? undefined : join(base, CONTEXTS_FILE);
};

/** Where the CLI keeps the data directories it has said "no context" for (one a line): the note is said once each. */
export const NOTED_FILE = join("sdwan-connections", "no-context-noted");

/**
 * Whether the no-context note for `dataDir` is still to be said, noting that it now is: true the first time for a
 * directory, and whenever the configuration directory cannot be read or written (better said again than never).
 */
export const firstNoContextNote = async (
  env: Readonly<Record<string, string | undefined>>,
  dataDir: string,
): Promise<boolean> => {
  const contexts = contextsPath(env);
  if (contexts === undefined) return true;
  const path = join(dirname(dirname(contexts)), NOTED_FILE);
  const noted = await readFile(path, "utf8").catch(() => "");
  if (noted.split("\n").includes(dataDir)) return false;
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, `${noted}${dataDir}\n`, { mode: 0o600 });
  } catch {
    // Not written: said again next time.
  }
  return true;
};

/** The file, decoded; an absent file is no contexts. A bad one is one line naming the file and the place. */
export const readContexts =
  (path: string | undefined): TaskEither<string, ContextsFile> =>
  async () => {
    if (path === undefined) return E.right({});
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ENOENT"
        ? E.right({})
        : E.left(`${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
    const YAML = await loadYaml();
    let document: unknown;
    try {
      document = YAML.parse(text, { logLevel: "error" }) ?? {};
    } catch (error) {
      return E.left(`${path} ${parseFailure(YAML, error, "YAML")}`);
    }
    const decoded = ContextsFile.decode(document);
    if (E.isLeft(decoded))
      return E.left(
        `${path}: ${toFieldErrors(decoded.left, "the file")
          .map(({ field, message }) => `${field}: ${message}`)
          .join("; ")}`,
      );
    const names = (decoded.right.contexts ?? []).map(({ name }) => name);
    const repeated = names.find((name, index) => names.indexOf(name) !== index);
    return repeated === undefined ? decoded : E.left(`${path}: context '${repeated}' is defined twice`);
  };

/** Writes the file aside and renames it over the old one (mode 0600: it names where the secrets are). */
export const writeContexts = async (path: string, file: ContextsFile): Promise<void> => {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const aside = `${path}.${process.pid}.tmp`;
  await writeFile(aside, (await loadYaml()).stringify(ContextsFile.encode(file)), { mode: 0o600 });
  await rename(aside, path);
};

/** Where a context's name came from, as a refusal of an unknown one says it. */
export type ContextNameSource = "--context" | "SDWAN_CONTEXT";

/**
 * The context a command runs in: the one `name` names (given by `source`), else the current one; none when neither is
 * set.
 */
export const chosenContext = (
  file: ContextsFile,
  name: string | undefined,
  source: ContextNameSource,
): E.Either<string, Context | undefined> => {
  const wanted = name ?? file["current-context"];
  if (wanted === undefined) return E.right(undefined);
  const found = (file.contexts ?? []).find((context) => context.name === wanted);
  return found === undefined
    ? E.left(
        `no context named '${wanted}' (${name === undefined ? "the current context" : `from ${source}`}); see 'sdwan-connections config get-contexts'`,
      )
    : E.right(found);
};

/** Where a context keeps its store or reaches its service, in one phrase for people. */
export const describeContext = (context: Context): string =>
  isServiceContext(context)
    ? `${context.server}${context.user === undefined ? "" : ` as ${context.user}`}`
    : "data-dir" in context
      ? `local store in ${context["data-dir"]}`
      : `local PostgreSQL store ($${context["postgres-url-env"]})`;

/**
 * A context from `config set-context`'s options: exactly one of --server, --data-dir, --postgres-url-env; the
 * credentials only with --server. Paths are made absolute, so the context means the same from any directory.
 */
export const contextFromOptions = (
  name: string,
  options: Readonly<Record<string, string | boolean | undefined>>,
): E.Either<string, Context> => {
  const text = (option: string) => (typeof options[option] === "string" ? (options[option] as string) : undefined);
  const kinds = ["server", "data-dir", "postgres-url-env"].filter((option) => text(option) !== undefined);
  if (kinds.length !== 1)
    return E.left("give exactly one of --server URL, --data-dir DIR or --postgres-url-env VARIABLE");
  const credentials = ["user", "password-file", "token-file", "ca-file"].filter((option) => text(option) !== undefined);
  const absolute = (option: string) =>
    text(option) === undefined ? {} : { [option]: resolvePath(text(option) as string) };
  const raw =
    kinds[0] === "server"
      ? {
          name,
          server: text("server"),
          ...(text("user") === undefined ? {} : { user: text("user") }),
          ...absolute("password-file"),
          ...absolute("token-file"),
          ...absolute("ca-file"),
        }
      : credentials.length > 0
        ? undefined
        : kinds[0] === "data-dir"
          ? { name, "data-dir": resolvePath(text("data-dir") as string) }
          : { name, "postgres-url-env": text("postgres-url-env") };
  if (raw === undefined) return E.left(`--${credentials[0]} goes with --server only`);
  const decoded = Context.decode(raw);
  return E.isLeft(decoded)
    ? E.left(
        toFieldErrors(decoded.left, "context")
          .map(({ field, message }) => `--${field}: ${message}`)
          .join("; "),
      )
    : decoded;
};
