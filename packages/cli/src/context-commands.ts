import { readFile } from "node:fs/promises";
import { resolve as resolvePath } from "node:path";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { OUTPUT_OPTIONS, type CommandOutput, type CommandSpec, type OptionSpec, type Refusal } from "./command.js";
import {
  chosenContext,
  contextFromOptions,
  contextsPath,
  describeContext,
  isServiceContext,
  readContexts,
  writeContexts,
  type Context,
  type ContextsFile,
  type ServiceContext,
} from "./contexts.js";
import { table } from "./output.js";
import type { ServiceEndpoint } from "./service-endpoint.js";

type Env = Readonly<Record<string, string | undefined>>;

/** `config <subcommand>`: the contexts, read and written in the user's configuration directory. */
export interface ConfigCommand extends CommandSpec {
  print(
    args: readonly string[],
    env: Env | undefined,
    options: Readonly<Record<string, string | boolean | undefined>>,
  ): TE.TaskEither<string | Refusal, CommandOutput>;
}

const environment = async (env: Env | undefined): Promise<Env> =>
  env ?? (await import("@sdwan-connections/composition/open-service")).processEnvironment();

// The contexts file and its path; without HOME or XDG_CONFIG_HOME there is nowhere to keep one.
const contextsOf = (
  env: Env | undefined,
): TE.TaskEither<string, { readonly path: string | undefined; readonly file: ContextsFile }> =>
  pipe(
    TE.fromTask(() => environment(env)),
    TE.flatMap((resolved) => {
      const path = contextsPath(resolved);
      return TE.map((file: ContextsFile) => ({ path, file }))(readContexts(path));
    }),
  );
const writable = (path: string | undefined): E.Either<string, string> =>
  path === undefined ? E.left("nowhere to keep contexts: set HOME or XDG_CONFIG_HOME") : E.right(path);
const save = (path: string | undefined, file: ContextsFile, said: string): TE.TaskEither<string, CommandOutput> =>
  pipe(
    TE.fromEither(writable(path)),
    TE.flatMap((to) =>
      TE.tryCatch(
        () => writeContexts(to, file),
        (error) => `${to} cannot be written (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      ),
    ),
    TE.map(() => ({ message: said })),
  );

const SET_OPTIONS: Record<string, OptionSpec> = {
  server: { type: "string", value: "URL", description: "a running service, reached over its REST API" },
  user: { type: "string", value: "name", description: "the service's user (Basic credentials)" },
  "password-file": {
    type: "string",
    value: "file",
    description: "a file holding the user's password (else it is asked at a prompt, on a terminal)",
  },
  "token-file": {
    type: "string",
    value: "file",
    description: "a file holding a bearer token, sent instead of a user and password",
  },
  "ca-file": {
    type: "string",
    value: "file",
    description: "PEM CAs to trust for an https: server, besides Node's own",
  },
  "data-dir": { type: "string", value: "dir", description: "a local store: the embedded store in this data directory" },
  "postgres-url-env": {
    type: "string",
    value: "variable",
    description: "a local store: PostgreSQL, its URL in this environment variable",
  },
};

export const CONFIG_COMMANDS: readonly ConfigCommand[] = [
  {
    name: "config get-contexts",
    summary: "the contexts: where each works (a service's URL, or a local store); * marks the current one",
    args: [],
    options: OUTPUT_OPTIONS,
    print: (_args, env) =>
      TE.map(({ file }: { file: ContextsFile }) => {
        const contexts = file.contexts ?? [];
        const data = contexts.map((context) => ({ ...context, current: context.name === file["current-context"] }));
        return {
          data,
          forPeople: (width: number) =>
            contexts.length === 0
              ? "No contexts: commands use the local store (SDWAN_DATA_DIR, else ./data); add one with 'config set-context'.\n"
              : table(
                  ["Current", "Name", "Where"],
                  contexts.map((context) => [
                    context.name === file["current-context"] ? "*" : "",
                    context.name,
                    describeContext(context),
                  ]),
                  width,
                ),
        };
      })(contextsOf(env)),
  },
  {
    name: "config current-context",
    summary: "the current context's name",
    args: [],
    options: {},
    print: (_args, env) =>
      pipe(
        contextsOf(env),
        TE.flatMap(({ file }) =>
          file["current-context"] === undefined
            ? TE.left("no current context: commands use the local store (SDWAN_DATA_DIR, else ./data)")
            : TE.right({ message: `${file["current-context"]}\n` }),
        ),
      ),
  },
  {
    name: "config use-context",
    summary: "make a context the current one",
    args: ["name"],
    options: {},
    print: ([name], env) =>
      pipe(
        contextsOf(env),
        TE.flatMap(({ path, file }): TE.TaskEither<string | Refusal, CommandOutput> =>
          (file.contexts ?? []).some((context) => context.name === name)
            ? save(path, { ...file, "current-context": name as string }, `Switched to context '${name}'.\n`)
            : TE.left({
                line: `no context named '${name}'`,
                hint: "see 'sdwan-connections config get-contexts'",
              }),
        ),
      ),
  },
  {
    name: "config set-context",
    summary:
      "add or replace a context: a service (--server, with its credentials) or a local store (--data-dir or --postgres-url-env)",
    args: ["name"],
    options: SET_OPTIONS,
    notes:
      "A password or token is never given on the command line: --password-file or --token-file name a file holding it, or the password is asked at a prompt (hidden) on a terminal. A database URL is never written either: --postgres-url-env names the variable holding it. The first context set becomes the current one.",
    print: ([name], env, options) =>
      pipe(
        TE.fromEither(contextFromOptions(name as string, options)),
        TE.flatMap((context) =>
          pipe(
            contextsOf(env),
            TE.flatMap(({ path, file }) => {
              const others = (file.contexts ?? []).filter((existing) => existing.name !== name);
              const replaced = others.length !== (file.contexts ?? []).length;
              return save(
                path,
                { ...file, "current-context": file["current-context"] ?? context.name, contexts: [...others, context] },
                `Context '${name}' ${replaced ? "replaced" : "set"}: ${describeContext(context)}.\n`,
              );
            }),
          ),
        ),
      ),
  },
];

/**
 * The context a command runs in, and the environment its store is configured from: a local context names the
 * store (SDWAN_DATA_DIR, or SDWAN_STORAGE=postgres and the URL from the variable it names); without a context,
 * the environment as it is.
 */
export const resolveContext = (
  env: Env,
  name: string | undefined,
): TE.TaskEither<string, { readonly context: Context | undefined; readonly env: Env }> =>
  pipe(
    readContexts(contextsPath(env)),
    TE.flatMap((file) => {
      // As gh's GH_TOKEN and kubectl's --context: --context, then SDWAN_CONTEXT, then SDWAN_SERVER (no file needed),
      // then the file's current context.
      const wanted = name ?? nonEmptyVariable(env, "SDWAN_CONTEXT");
      const server = nonEmptyVariable(env, "SDWAN_SERVER");
      return TE.fromEither(
        wanted === undefined && server !== undefined
          ? contextOfEnvironment(env, server)
          : chosenContext(file, wanted, name === undefined ? "SDWAN_CONTEXT" : "--context"),
      );
    }),
    TE.flatMap((context) => {
      if (context === undefined || isServiceContext(context)) return TE.right({ context, env });
      if ("data-dir" in context)
        return TE.right({ context, env: { ...env, SDWAN_STORAGE: "lowdb", SDWAN_DATA_DIR: context["data-dir"] } });
      const url = env[context["postgres-url-env"]] ?? "";
      return url === ""
        ? TE.left(`context '${context.name}': ${context["postgres-url-env"]} is not set (it holds the PostgreSQL URL)`)
        : TE.right({ context, env: { ...env, SDWAN_STORAGE: "postgres", SDWAN_DATABASE_URL: url } });
    }),
  );

const nonEmptyVariable = (env: Env, name: string): string | undefined => {
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
};

/** The name of the context SDWAN_SERVER makes (in the lines that blame a context). */
export const ENVIRONMENT_CONTEXT = "SDWAN_SERVER";

/**
 * The service context SDWAN_SERVER names, for CI and containers with no configuration file: its bearer token from
 * SDWAN_TOKEN (read by `serviceEndpoint`, never written anywhere) or the file SDWAN_TOKEN_FILE names, its CAs from
 * SDWAN_CA_FILE.
 */
const contextOfEnvironment = (env: Env, server: string): E.Either<string, Context> => {
  if (!URL.canParse(server) || !/^https?:$/.test(new URL(server).protocol))
    return E.left("SDWAN_SERVER must be an http: or https: URL");
  const tokenFile = nonEmptyVariable(env, "SDWAN_TOKEN_FILE");
  const caFile = nonEmptyVariable(env, "SDWAN_CA_FILE");
  return E.right({
    name: ENVIRONMENT_CONTEXT,
    server,
    ...(tokenFile === undefined ? {} : { "token-file": resolvePath(tokenFile) }),
    ...(caFile === undefined ? {} : { "ca-file": resolvePath(caFile) }),
  });
};

// A secret file's text, its final line break not part of it.
const secretFile = (context: string, option: string, path: string): TE.TaskEither<string, string> =>
  TE.tryCatch(
    async () => (await readFile(path, "utf8")).replace(/\r?\n$/, ""),
    (error) =>
      `context '${context}': the ${option} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
  );

/**
 * How to reach a service's context: a bearer token from its token file (for the service tokens of SPEC §11,
 * when the service has them), else Basic with the password from its file or as typed; its CA file read.
 */
export const serviceEndpoint = (
  context: ServiceContext,
  typedPassword: string | undefined,
  orchestratorTimeoutMs: number,
  env: Env = {},
): TE.TaskEither<string, ServiceEndpoint> =>
  pipe(
    (context.name === ENVIRONMENT_CONTEXT && nonEmptyVariable(env, "SDWAN_TOKEN") !== undefined
      ? TE.right(`Bearer ${nonEmptyVariable(env, "SDWAN_TOKEN") ?? ""}`)
      : context["refresh-token-file"] !== undefined
        ? TE.map((token: string) => `Bearer ${token}`)(async () =>
            (await import("./login.js")).accessTokenOf(context)(),
          )
        : context["token-file"] !== undefined
          ? TE.map((token: string) => `Bearer ${token}`)(secretFile(context.name, "token file", context["token-file"]))
          : context.user === undefined
            ? TE.right(undefined)
            : TE.map((password: string) => `Basic ${Buffer.from(`${context.user}:${password}`).toString("base64")}`)(
                context["password-file"] !== undefined
                  ? secretFile(context.name, "password file", context["password-file"])
                  : TE.right(typedPassword ?? ""),
              )) as TE.TaskEither<string, string | undefined>,
    TE.flatMap((authorization) =>
      TE.map((ca: string | undefined) => ({
        server: context.server,
        context: context.name,
        authorization,
        // A signed-in context's access token is short-lived: a stream opened again asks for a fresh one.
        ...(context["refresh-token-file"] === undefined
          ? {}
          : {
              reauthorize: async () => {
                const token = await (await import("./login.js")).accessTokenOf(context)();
                return E.isRight(token) ? `Bearer ${token.right}` : undefined;
              },
            }),
        ...(ca === undefined ? {} : { ca }),
        // The service's own deadline for the orchestrator, and room for its store.
        timeoutMs: orchestratorTimeoutMs + 30_000,
      }))(
        context["ca-file"] === undefined
          ? TE.right(undefined)
          : secretFile(context.name, "CA file", context["ca-file"]),
      ),
    ),
  );
