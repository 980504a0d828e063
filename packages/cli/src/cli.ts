import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { compose, loadConfig, processEnvironment } from "@sdwan-connections/composition";
import { describeError } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import { pino } from "pino";
import { COMMANDS, type Command } from "./commands.js";
import { bashCompletion, zshCompletion } from "./completion.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { table } from "./output.js";
import { withProgress, type ProgressStream } from "./progress.js";

const PROGRAM = "sdwan-connections";

export interface CliIo {
  readonly stdout: ProgressStream;
  readonly stderr: ProgressStream;
  /** Standard input as text, read once (the apiKey). */
  readonly readStdin: () => Promise<string>;
  /** The environment to configure from; the composition reads the process's own when undefined. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const usageOf = (command: Command): string =>
  [
    `${PROGRAM} ${command.name}`,
    ...command.args.map((arg) => `<${arg}>`),
    ...Object.entries(command.options).map(([name, spec]) => (spec.type === "string" ? `[--${name} <${spec.value ?? "value"}>]` : `[--${name}]`)),
  ].join(" ");

const commandHelp = (command: Command): string =>
  [
    `usage: ${usageOf(command)}`,
    "",
    command.summary,
    "",
    "Options:",
    table(
      ["", ""],
      [...Object.entries(command.options), ["help", { description: "show this help" }] as const].map(([name, spec]) => [`  --${name}`, spec.description]),
    )
      .split("\n")
      .slice(1)
      .join("\n")
      .trimEnd(),
    ...(command.notes === undefined ? [] : ["", command.notes]),
    "",
  ].join("\n");

export const HELP = `usage: ${PROGRAM} <command> [arguments] [options]

Commands:
${table(
  ["", ""],
  [
    ...COMMANDS.map((command) => [`  ${[command.name, ...command.args.map((arg) => `<${arg}>`)].join(" ")}`, command.summary]),
    ["  completion <bash|zsh>", "print a shell completion script"],
    ["  help [command]", "this help, or a command's"],
  ],
)
  .split("\n")
  .slice(1)
  .join("\n")
  .trimEnd()}

\`${PROGRAM} <command> --help\` shows a command's options. Tables are for people; --json
(the default when standard output is not a terminal) is for scripts. Configuration comes
from the same SDWAN_* environment variables as the service (docs/interface.md §6); the
CLI can run while the service uses the same store.

Exit codes: 0 done; 2 usage, invalid input or configuration; 3 not found; 4 conflict
(alias taken, not a partner); 5 the orchestrator refused the key; 6 the orchestrator
failed (unreachable, timed out, rate-limited, garbage); 7 storage failure.
`;

/** What the command line asks for, or a usage error. */
type Parsed =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "run"; readonly command: Command; readonly args: readonly string[]; readonly options: Record<string, string | boolean | undefined> };

const parseCommandLine = (argv: readonly string[]): E.Either<string, Parsed> => {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") return E.right({ kind: "text", text: HELP });
  if (name === "help") {
    const command = COMMANDS.find((candidate) => candidate.name === rest[0]);
    if (rest.length === 0) return E.right({ kind: "text", text: HELP });
    return command === undefined ? E.left(`unknown command ${rest[0]}`) : E.right({ kind: "text", text: commandHelp(command) });
  }
  if (name === "completion") {
    if (rest[0] === "bash" && rest.length === 1) return E.right({ kind: "text", text: bashCompletion() });
    if (rest[0] === "zsh" && rest.length === 1) return E.right({ kind: "text", text: zshCompletion() });
    return E.left("usage: completion <bash|zsh>");
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) return E.left(`unknown command ${name}`);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...rest],
      options: {
        ...Object.fromEntries(Object.entries(command.options).map(([option, spec]) => [option, { type: spec.type, ...(spec.short === undefined ? {} : { short: spec.short }) }])),
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // util.parseArgs throws on an unknown option or a missing value; its message names the option only.
    return E.left((error as Error).message.split("\n")[0] ?? "bad options");
  }
  if (parsed.values["help"] === true) return E.right({ kind: "text", text: commandHelp(command) });
  if (parsed.positionals.length !== command.args.length) {
    return E.left(`${command.name} expects ${command.args.map((arg) => `<${arg}>`).join(" ") || "no arguments"}; see \`${PROGRAM} ${command.name} --help\``);
  }
  return E.right({ kind: "run", command, args: parsed.positionals, options: parsed.values as Record<string, string | boolean | undefined> });
};

/**
 * Runs one command line and answers the exit code. Standard output carries
 * the answer only; messages, the progress indicator and warnings go to
 * standard error.
 */
export const runCli = async (argv: readonly string[], io: CliIo): Promise<number> => {
  const fail = (code: number, line: string): number => {
    io.stderr.write(`${PROGRAM}: ${line}\n`);
    return code;
  };
  // pnpm passes a "--" through
  const parsed = parseCommandLine(argv.filter((arg) => arg !== "--"));
  if (E.isLeft(parsed)) return fail(EXIT.usage, `${parsed.left}\n\n${HELP}`);
  if (parsed.right.kind === "text") {
    io.stdout.write(parsed.right.text);
    return EXIT.ok;
  }
  const { command, args, options } = parsed.right;

  const config = loadConfig(io.env);
  if (E.isLeft(config)) return fail(EXIT.usage, config.left);
  // Logs go to standard error: standard output carries the answer.
  const composed = await compose(config.right, { logDestination: pino.destination(2) })();
  if (E.isLeft(composed)) return fail(EXIT.usage, composed.left);
  const { service, close } = composed.right;
  try {
    const input = {
      service,
      args,
      options,
      readApiKey: readApiKey(io),
      asJson: options["json"] === true || io.stdout.isTTY !== true,
      // The audit trail's actor: the operating-system user who ran the command.
      by: { name: `cli:${userInfo().username}` },
      env: io.env ?? processEnvironment(),
    };
    const run = () => command.run(input)();
    const result = command.progress === undefined ? await run() : await withProgress(io.stderr, command.progress, run);
    if (E.isLeft(result)) return fail(exitCodeOf(result.left), describeError(result.left));
    if (typeof result.right === "string") {
      io.stdout.write(result.right);
      return EXIT.ok;
    }
    io.stdout.write(result.right.output);
    return result.right.exitCode;
  } finally {
    await close();
  }
};

const readApiKey = (io: CliIo) => async (): Promise<string> => {
  if (io.stderr.isTTY === true) io.stderr.write("apiKey (then Enter, Ctrl-D): ");
  // One trailing line break is the shell's, not the key's.
  return (await io.readStdin()).replace(/\r?\n$/, "");
};
