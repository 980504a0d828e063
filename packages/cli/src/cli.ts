import { userInfo } from "node:os";
import { join } from "node:path";
import type { Core, DomainError } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { AdminOptions } from "./admin-commands.js";
import { describeForCli, stopExitCode, type Command, type CommandOutput, type CommandSpec } from "./command.js";
import {
  composition,
  isAdminCommand,
  parseCommandLine,
  PROGRAM,
  type LocalCommand,
  type Options,
} from "./command-line.js";
import { COMMANDS } from "./commands.js";
import { resolveContext, serviceEndpoint, type ConfigCommand } from "./context-commands.js";
import { firstNoContextNote, isServiceContext, type ServiceContext } from "./contexts.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { LOGIN_COMMAND } from "./login-command.js";
import { DEFAULT_WIDTH, json } from "./output.js";
import { withProgress, type ProgressStream } from "./progress.js";
import type { ServiceEndpoint } from "./service-endpoint.js";
import { loadYaml } from "./yaml.js";

export { help, VERSION } from "./command-line.js";

export interface OutputStream extends ProgressStream {
  /** The terminal's width, when it is one. */
  readonly columns?: number | undefined;
  /** Tells when a full buffer (`write` answered false) has drained: a stream's replay waits for it. */
  once?(event: "drain", listener: () => void): unknown;
}

export interface CliIo {
  readonly stdout: OutputStream;
  readonly stderr: ProgressStream;
  /**
   * The apiKey from standard input: on a terminal after `prompt`, typed with echo off and ended by Enter;
   * otherwise all of it, without a prompt. Undefined when the person cancelled (Ctrl-C).
   */
  readonly readSecret: (prompt: string) => Promise<string | undefined>;
  /** Whether standard input is a terminal: a context's password may then be asked at a prompt. */
  readonly interactive?: boolean;
  /** The environment to configure from; the composition reads the process's own when undefined. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Registers what to do on SIGINT or SIGTERM while a command that can stop cleanly (apply) runs; given the
   * signal's exit code. Without it (or for other commands) the process ends at once, as it would anyway.
   */
  readonly onStop?: (stop: (exitCode: number) => void) => void;
}

type OutputFormat = "table" | "json" | "yaml";

// -o, or --json, or the default: a table on a terminal, JSON for scripts. A command whose -o names more
// formats (list's wide) draws them itself, as a table.
const outputFormat = (command: CommandSpec, options: Options, stdout: OutputStream): E.Either<string, OutputFormat> => {
  const chosen = options["output"];
  const formats = (command.options["output"]?.value ?? "table|json|yaml").split("|");
  if (typeof chosen === "string")
    return formats.includes(chosen)
      ? E.right(chosen === "json" || chosen === "yaml" ? chosen : "table")
      : E.left(`-o must be ${formats.slice(0, -1).join(", ")} or ${formats.at(-1)}, not '${chosen}'`);
  return E.right(
    options["json"] === true || (stdout.isTTY !== true && command.saysInWords !== true) ? "json" : "table",
  );
};

const render = async (output: CommandOutput, format: OutputFormat, stdout: OutputStream): Promise<string> => {
  if ("message" in output) return output.message;
  if (format === "json") return json(output.data);
  if (format === "yaml") return (await loadYaml()).stringify(output.data);
  // A terminal's width (DEFAULT_WIDTH when it says none); a table asked for in a pipe or a file is never narrowed.
  return output.forPeople(stdout.isTTY === true ? stdout.columns || DEFAULT_WIDTH : Number.POSITIVE_INFINITY);
};

// A use case's error in this CLI's words: its arguments and options, not the REST API's request fields.
const CLI_FIELDS: Record<string, string> = {
  apiKey: "the apiKey (standard input)",
  orchestratorUrl: "<orchestratorUrl>",
  alias: "<alias>",
  body: "input",
  query: "options",
  lastEventId: "--since-id",
  keyRenewal: "--key-renewal",
};
// A request's field as the command names it: its option (`expiresInDays` is --expires-in-days), its argument, or words.
const fieldInCliWords = (field: string, command: CommandSpec): string => {
  const name = field.replace(/^(body|query|entry)\./, "");
  const option = name.replace(/[A-Z]/g, (upper) => `-${upper.toLowerCase()}`);
  return name === "orchestratorUrl" && command.name === "update"
    ? "--url"
    : option in command.options
      ? `--${option}`
      : command.args.includes(name)
        ? `<${name}>`
        : (CLI_FIELDS[name] ?? name);
};
const fieldsInCliWords = (errors: readonly { field: string; message: string }[], command: CommandSpec): string =>
  errors.map(({ field, message }) => `${fieldInCliWords(field, command)}: ${message}`).join("; ");
const inCliWords = (error: DomainError, command: CommandSpec): string =>
  error._tag === "InvalidInput" ? fieldsInCliWords(error.errors, command) : describeForCli(error);

// A prompt and the cursor waiting after it fit a terminal of 80 columns: a longer one wraps.
const PROMPT_WIDTH = 79;
const HIDDEN_ANSWER = " (hidden; Enter ends it): ";

/** The prompt for an answer typed unseen: what is asked, cut short (…) where it would not fit PROMPT_WIDTH. */
export const hiddenPrompt = (asked: string): string => {
  const room = PROMPT_WIDTH - HIDDEN_ANSWER.length;
  const characters = [...asked];
  return `${characters.length <= room ? asked : `${characters.slice(0, room - 1).join("")}…`}${HIDDEN_ANSWER}`;
};

const KEY_PROMPT = hiddenPrompt("apiKey");

const hintFor = (command: CommandSpec | undefined): string =>
  `see '${PROGRAM}${command === undefined ? "" : ` ${command.name}`} --help'`;

/**
 * Runs one command line and answers the exit code. Standard output carries
 * the answer only; messages, prompts, the progress indicator and warnings go
 * to standard error, each error in one line with a hint where one helps.
 */
export const runCli = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const fail = (code: number, line: string, hint?: string): number => {
    io.stderr.write(`${PROGRAM}: ${line}${hint === undefined ? "" : `; ${hint}`}\n`);
    return code;
  };
  // pnpm passes a "--" through
  const parsed = parseCommandLine(argv.filter((arg) => arg !== "--"));
  if (E.isLeft(parsed)) {
    const { command, message, hint } = parsed.left;
    return fail(EXIT.usage, command === undefined ? message : `${command.name}: ${message}`, hint ?? hintFor(command));
  }
  if (parsed.right.kind === "text") {
    io.stdout.write(parsed.right.text);
    return EXIT.ok;
  }
  const { command, args, options } = parsed.right;
  const format = outputFormat(command, options, io.stdout);
  if (E.isLeft(format)) return fail(EXIT.usage, `${command.name}: ${format.left}`, hintFor(command));

  /** How to reach a service's context: its password asked at a prompt when it has none in a file; the exit code when not. */
  const endpointOf =
    (
      inContext: ServiceContext,
      quiet: boolean,
      orchestratorTimeoutMs: number,
      env: Readonly<Record<string, string | undefined>>,
    ): TaskEither<number, ServiceEndpoint> =>
    async () => {
      const password =
        inContext["token-file"] === undefined &&
        inContext["password-file"] === undefined &&
        inContext.user !== undefined;
      // The completion script asks quietly: never a prompt.
      if (password && (quiet || io.interactive !== true)) {
        return E.left(
          quiet
            ? EXIT.ok
            : fail(
                EXIT.usage,
                `context '${inContext.name}': no password for ${inContext.user}: standard input is not a terminal; give the context one in a file (config set-context ${inContext.name} --password-file FILE)`,
              ),
        );
      }
      const typed = password
        ? await io.readSecret(hiddenPrompt(`password of ${inContext.user} at ${inContext.server}`))
        : undefined;
      if (password && typed === undefined) return E.left(fail(EXIT.interrupted, "cancelled"));
      const endpoint = await serviceEndpoint(inContext, typed, orchestratorTimeoutMs, env)();
      return E.isLeft(endpoint) ? E.left(fail(EXIT.usage, endpoint.left)) : endpoint;
    };

  if (command === LOGIN_COMMAND) {
    const { processEnvironment } = await composition();
    const { login } = await import("./login.js");
    const done = await login(options, io.env ?? processEnvironment(), (line) =>
      io.stderr.write(`${PROGRAM}: ${line}\n`),
    )();
    if (E.isLeft(done)) return fail(EXIT.usage, done.left, hintFor(command));
    io.stdout.write(await render(done.right, format.right, io.stdout));
    return EXIT.ok;
  }

  if (isAdminCommand(command)) {
    const { loadConfig, processEnvironment } = await composition();
    const chosen = await resolveContext(
      io.env ?? processEnvironment(),
      typeof options["context"] === "string" ? options["context"] : undefined,
    )();
    if (E.isLeft(chosen)) return fail(EXIT.usage, chosen.left);
    const { context: inContext, env } = chosen.right;
    if (inContext === undefined || !isServiceContext(inContext))
      return fail(
        EXIT.usage,
        `${command.name}: is the service's (its admin API): ${inContext === undefined ? "no context names one" : `context '${inContext.name}' is a local store`}; set SDWAN_SERVER (and SDWAN_TOKEN), or a context: ${PROGRAM} config set-context NAME --server URL`,
      );
    const config = loadConfig(env);
    if (E.isLeft(config)) return fail(EXIT.usage, config.left);
    const endpoint = await endpointOf(inContext, false, config.right.orchestratorTimeoutMs, env)();
    if (E.isLeft(endpoint)) return endpoint.left;
    const { createRemoteService } = await import("./rest-service.js");
    const done = await command.run(createRemoteService(endpoint.right).rest, args, options as AdminOptions)();
    if (E.isLeft(done))
      return fail(
        EXIT[done.left.exit],
        `${command.name}: ${done.left.errors === undefined ? done.left.message : fieldsInCliWords(done.left.errors, command)}`,
        done.left.exit === "usage" && done.left.blamesContext !== true ? hintFor(command) : undefined,
      );
    io.stdout.write(await render(done.right, format.right, io.stdout));
    return done.right.exitCode ?? EXIT.ok;
  }
  if (!COMMANDS.includes(command as Command)) {
    const printed = await (command as LocalCommand | ConfigCommand).print(args, io.env, options)();
    if (E.isLeft(printed)) {
      const { line, hint } =
        typeof printed.left === "string" ? { line: printed.left, hint: hintFor(command) } : printed.left;
      return fail(EXIT.usage, line, hint);
    }
    io.stdout.write(await render(printed.right, format.right, io.stdout));
    return EXIT.ok;
  }
  const run = command as Command;

  const {
    openService,
    loadConfig,
    locateStore,
    describeMissingStore,
    offlineOrchestrator,
    processEnvironment,
    MASTER_KEY_FILE,
  } = await composition();
  // The environment read once: each read of process.env itself scans all of it.
  const processEnv = io.env ?? processEnvironment();
  const chosen = await resolveContext(
    processEnv,
    typeof options["context"] === "string" ? options["context"] : undefined,
  )();
  if (E.isLeft(chosen)) return fail(EXIT.usage, chosen.left);
  const { context: inContext, env } = chosen.right;
  const config = loadConfig(env);
  if (E.isLeft(config)) return fail(EXIT.usage, config.left);
  const store = await locateStore(config.right);
  const dataDir = store.kind === "lowdb" ? store.dataDir : config.right.dataDir;
  const stop = new AbortController();
  let osUser: string | undefined;
  if (run.stopsCleanly === true) io.onStop?.((exitCode) => stop.abort(exitCode));
  const context = {
    args,
    options,
    // The audit trail's actor: the operating-system user who ran the command (through a service, the user it signs in as),
    // asked of the user database (/etc/passwd, or NSS's LDAP) only when an entry names it: a read never does.
    by: {
      get name() {
        return (osUser ??= `cli:${userInfo().username}`);
      },
    },
    keySources: {
      env,
      keyDir: config.right.apiKeyDir,
      dataDir,
      masterKeyFile: join(dataDir, MASTER_KEY_FILE),
      masterKeys: [
        ...(config.right.masterKey === undefined ? [] : [config.right.masterKey]),
        ...config.right.previousMasterKeys,
      ].map(({ key }) => key),
    },
    signal: stop.signal,
    // A stream's items, each as it comes: a JSON line for scripts (a YAML document of one flow mapping for -o yaml), a line of words for people.
    emit: (data: unknown, line: string) => {
      const flowing = io.stdout.write(
        format.right === "table" ? `${line}\n` : `${format.right === "yaml" ? "---\n" : ""}${JSON.stringify(data)}\n`,
      );
      // A reader slower than the replay (a pipe to a slow consumer) holds the next page until it has read this one.
      if (flowing === false && io.stdout.once !== undefined)
        return new Promise<void>((drained) => void io.stdout.once?.("drain", drained));
    },
  };
  // The command's work, with the progress indicator: its answer on standard output, or its error; the exit code.
  // `blamesContext`: what a context's service refused (its credentials, its rights) is not fixed by the command's options.
  const answer = async (
    work: TaskEither<DomainError, CommandOutput>,
    blamesContext: (error: DomainError) => boolean = () => false,
  ): Promise<number> => {
    const result = run.progress === undefined ? await work() : await withProgress(io.stderr, run.progress, work);
    if (E.isLeft(result)) {
      const code = exitCodeOf(result.left);
      const hint = code === EXIT.usage && !blamesContext(result.left) ? hintFor(run) : undefined;
      return fail(code, inCliWords(result.left, run), hint);
    }
    io.stdout.write(await render(result.right, format.right, io.stdout));
    return result.right.exitCode ?? EXIT.ok;
  };
  const readsKey = run.readsKey?.(options) === true;

  if (inContext !== undefined && isServiceContext(inContext)) {
    if (run.localOnly === true)
      return fail(
        EXIT.usage,
        `${run.name}: is a local-store operation, not one of the service's API (context '${inContext.name}' is ${inContext.server}): run it where the store is, e.g. kubectl exec into the service's pod (docs/deploy.md)`,
      );
    const endpoint = await endpointOf(inContext, run.hidden === true, config.right.orchestratorTimeoutMs, processEnv)();
    if (E.isLeft(endpoint)) return endpoint.left;
    const apiKey = readsKey ? await io.readSecret(KEY_PROMPT) : undefined;
    if (readsKey && apiKey === undefined) return fail(EXIT.interrupted, "cancelled");
    const { createRemoteService, blamesContext } = await import("./rest-service.js");
    // What a remote service lacks is never called (rotate-master-key is refused above).
    return answer(
      run.run({
        ...context,
        service: createRemoteService({
          ...endpoint.right,
          onReconnect: (line) => io.stderr.write(`${PROGRAM}: ${run.name}: ${line}\n`),
        }) as unknown as Core,
        apiKey,
      }),
      blamesContext,
    );
  }

  // No context, no store named: today's ./data, said once; and never a new store there unasked.
  const implicit =
    inContext === undefined &&
    config.right.dataDirFromDefault &&
    store.kind === "lowdb" &&
    (env["SDWAN_STORAGE"] ?? "") === "";
  // Said once per directory (noted in the configuration directory), not on every call: a reminder repeated is noise.
  if (implicit && run.hidden !== true && (await firstNoContextNote(processEnv, dataDir)))
    io.stderr.write(
      `${PROGRAM}: no context: using the local store in ${dataDir} (SDWAN_DATA_DIR is not set: ./data in the current directory); set a context with '${PROGRAM} config set-context' (said once for this directory)\n`,
    );
  if (store.kind === "lowdb" && !store.exists) {
    // The completion script asks quietly: no store, no aliases.
    if (run.hidden === true) return EXIT.ok;
    const withoutStore = run.withoutStore?.(options);
    if (withoutStore !== undefined) return answer(withoutStore(context));
    if (run.createsStore?.(options) !== true)
      return fail(
        EXIT.noStore,
        inContext === undefined
          ? describeMissingStore(store)
          : `no store in ${store.dataDir} (context '${inContext.name}'); point the context at the service's data directory: ${PROGRAM} config set-context ${inContext.name} --data-dir DIR`,
      );
    if (implicit)
      return fail(
        EXIT.noStore,
        `${describeMissingStore(store)}; a new store is created only where one is named: a context (${PROGRAM} config set-context NAME --data-dir DIR) or SDWAN_DATA_DIR`,
      );
    io.stderr.write(`${PROGRAM}: creating a new store in ${store.dataDir}\n`);
  }

  // The key first, before anything can draw on the terminal: the progress indicator starts after it.
  const apiKey = readsKey ? await io.readSecret(KEY_PROMPT) : undefined;
  if (readsKey && apiKey === undefined) return fail(EXIT.interrupted, "cancelled");

  // Logs go to standard error, and only when asked for (SDWAN_LOG_LEVEL): by default a command says one line of its own, never log lines.
  const composed = await openService(
    (env["SDWAN_LOG_LEVEL"] ?? "") === "" ? { ...config.right, logLevel: "silent" } : config.right,
    {
      // Made at the first line logged: process.stderr on a pipe loads node:net, and a command most often logs nothing.
      logDestination: { write: (line: string) => void process.stderr.write(line) },
      ...(run.asksOrchestrator === true ? {} : { orchestrator: offlineOrchestrator }),
      readsOnly: run.readsOnly === true,
      // A PostgreSQL context's URL is in the variable it names: a failure names that one.
      ...(inContext !== undefined && "postgres-url-env" in inContext
        ? { databaseUrlVariable: inContext["postgres-url-env"] }
        : {}),
    },
  )();
  if (E.isLeft(composed))
    return fail(composed.left.kind === "storage" ? EXIT.storage : EXIT.usage, composed.left.message);
  const { service, close } = composed.right;
  try {
    return await answer(run.run({ ...context, service, apiKey }));
  } finally {
    // Once stopped, what is still under way is not waited for (a slow orchestrator): the store's writes are atomic.
    await (stopExitCode(stop.signal) === undefined
      ? close()
      : Promise.race([close(), new Promise((resolve) => setTimeout(resolve, 200))]));
  }
};
