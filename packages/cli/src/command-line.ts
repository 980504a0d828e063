import { parseArgs } from "node:util";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import packageJson from "../package.json" with { type: "json" };
import { ADMIN_COMMANDS, ADMIN_GROUPS, type AdminCommand } from "./admin-commands.js";
import {
  OUTPUT_OPTIONS,
  type Command,
  type CommandOutput,
  type CommandSpec,
  type OptionSpec,
  type Refusal,
} from "./command.js";
import { COMMANDS } from "./commands.js";
import { bashCompletion, zshCompletion } from "./completion.js";
import { CONFIG_COMMANDS, resolveContext } from "./context-commands.js";
import { LOGIN_COMMAND } from "./login-command.js";
import { table, wrap } from "./output.js";
import { describeSettings } from "./settings.js";

/**
 * The command line itself: every command the CLI knows, `--help` and each command's help drawn from them, and
 * argv parsed into one command with its arguments and options (or a usage error in this CLI's words).
 */
export const PROGRAM = "sdwan-connections";
export const VERSION = packageJson.version;

/** Commands that need neither the store nor the service; `config` loads the configuration (and the composition) when called. */
export interface LocalCommand extends CommandSpec {
  print(
    args: readonly string[],
    env: Readonly<Record<string, string | undefined>> | undefined,
    options: Options,
  ): TaskEither<string | Refusal, CommandOutput>;
}

// Every command that works on connections runs in a context: the current one, or the one --context names.
const CONTEXT_OPTION: Record<string, OptionSpec> = {
  context: {
    type: "string",
    value: "name",
    description: "run in this context instead of the current one (see config get-contexts)",
  },
};

export const LOCAL_COMMANDS: readonly LocalCommand[] = [
  {
    name: "config",
    summary: "the effective settings: where the store is, the timeouts, the limits (never a secret)",
    args: [],
    options: { ...OUTPUT_OPTIONS, ...CONTEXT_OPTION },
    notes:
      "From the same SDWAN_* variables as the service (docs/interface.md §6); the data directory is shown resolved, saying whether it is the default (./data in the current directory). Keys and passwords are never shown: only whether they are set.",
    print: (_args, env, options) => async () => {
      const { loadConfig, locateStore, processEnvironment } = await composition();
      // The context's store (the current one, or --context's), as a command would use it.
      const chosen = await resolveContext(
        env ?? processEnvironment(),
        typeof options["context"] === "string" ? options["context"] : undefined,
      )();
      if (E.isLeft(chosen)) return chosen;
      const config = loadConfig(chosen.right.env);
      return E.isLeft(config)
        ? config
        : E.right(describeSettings(config.right, await locateStore(config.right), chosen.right.context));
    },
  },
  {
    name: "completion",
    summary: "print a shell completion script (aliases completed from the local store)",
    args: ["bash|zsh"],
    options: {},
    notes: `bash: ${PROGRAM} completion bash > /etc/bash_completion.d/${PROGRAM}; zsh: source <(${PROGRAM} completion zsh)`,
    print:
      ([shell]) =>
      async () =>
        shell === "bash" || shell === "zsh"
          ? E.right({ message: (shell === "bash" ? bashCompletion : zshCompletion)(ALL_COMMANDS) })
          : E.left(`completion: the shell must be bash or zsh, not '${shell}'`),
  },
];

// The composition is loaded when a command needs it: --help, --version and completion start without it.
// Its container-free entry: a command's start does not load inversify.
export const composition = () => import("@sdwan-connections/composition/open-service");

const ALL_COMMANDS: readonly CommandSpec[] = [
  ...COMMANDS,
  LOGIN_COMMAND,
  ...ADMIN_COMMANDS,
  ...LOCAL_COMMANDS,
  ...CONFIG_COMMANDS,
];
export const isAdminCommand = (command: CommandSpec): command is AdminCommand =>
  ADMIN_COMMANDS.includes(command as AdminCommand);
const findCommand = (name: string | undefined): CommandSpec | undefined =>
  ALL_COMMANDS.find((candidate) => candidate.name === name);

// How many single-character edits turn one word into the other (Levenshtein).
const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1)
      row.push(
        Math.min(
          (previous[j] ?? 0) + 1,
          (row[j - 1] ?? 0) + 1,
          (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
        ),
      );
    previous = row;
  }
  return previous[b.length] ?? 0;
};

/** The closest of the candidates when it is a typo away (`lsit`: did you mean `list`?), as the end of a line. */
const didYouMean = (name: string, candidates: readonly string[]): string => {
  const [closest] = candidates
    .map((candidate) => ({ candidate, distance: editDistance(name, candidate) }))
    .sort((x, y) => x.distance - y.distance);
  return closest !== undefined && closest.distance <= 2 ? `; did you mean '${closest.candidate}'?` : "";
};

/** An unknown command in words, with the closest command when one is a typo away. */
const unknownCommand = (name: string): string =>
  `unknown command '${name}'${didYouMean(
    name,
    ALL_COMMANDS.filter((command) => command.hidden !== true && !command.name.includes(" ")).map(
      (command) => command.name,
    ),
  )}`;

const optionsOf = (command: CommandSpec): Readonly<Record<string, OptionSpec>> =>
  COMMANDS.includes(command as Command) || isAdminCommand(command)
    ? { ...command.options, ...CONTEXT_OPTION }
    : command.options;

// Help is drawn for a terminal of 80 columns: the installed command prints it from texts made when it is built,
// before any terminal's width is known.
const HELP_WIDTH = 80;
// Text as lines of at most HELP_WIDTH characters, each line of it wrapped at spaces (and indented by `indent`).
const filled = (text: string, indent = ""): string =>
  text
    .split("\n")
    .flatMap((line) => wrap(line, HELP_WIDTH - indent.length))
    .map((line) => `${indent}${line}`)
    .join("\n");

// The usage line, wrapped between its words (an option with its value is one), continued under the command's name.
const usageOf = (command: CommandSpec): string =>
  [
    ...command.args.map((arg) => `<${arg}>`),
    ...Object.entries(optionsOf(command)).map(([name, spec]) =>
      spec.type === "string" ? `[--${name} <${spec.value ?? "value"}>]` : `[--${name}]`,
    ),
  ]
    .reduce(
      (lines, word) => {
        const last = lines.at(-1) ?? "";
        return last.length + 1 + word.length <= HELP_WIDTH
          ? [...lines.slice(0, -1), `${last} ${word}`]
          : [...lines, `${" ".repeat("usage: ".length)}${word}`];
      },
      [`usage: ${PROGRAM} ${command.name}`],
    )
    .join("\n");

const commandHelp = (command: CommandSpec): string =>
  [
    usageOf(command),
    "",
    filled(command.summary),
    "",
    "Options:",
    table(
      ["", ""],
      [...Object.entries(optionsOf(command)), ["help", { description: "show this help" }] as const].map(
        ([name, spec]) => [
          `  ${"short" in spec && spec.short !== undefined ? `-${spec.short}, ` : ""}--${name}`,
          spec.description,
        ],
      ),
      HELP_WIDTH,
    )
      .split("\n")
      .slice(1)
      .join("\n")
      .trimEnd(),
    ...(command.notes === undefined ? [] : ["", filled(command.notes)]),
    "",
  ].join("\n");

/** The overview (`--help`), drawn when asked: its table of every command was drawn at every command's start. */
export const help = (): string => `usage: ${PROGRAM} <command> [arguments] [options]

Commands:
${table(
  ["", ""],
  [
    ...ALL_COMMANDS.filter((command) => command.hidden !== true).map((command) => [
      `  ${[command.name, ...command.args.map((arg) => `<${arg}>`)].join(" ")}`,
      command.summary,
    ]),
    ["  help [command]", "this help, or a command's"],
  ],
  HELP_WIDTH,
)
  .split("\n")
  .slice(1)
  .join("\n")
  .trimEnd()}

${filled(`\`${PROGRAM} <command> --help\` shows a command's options; \`${PROGRAM} --version\` (or \`version\`) its version. Tables are for people; -o json or yaml (json is the default when standard output is not a terminal) is for scripts. Commands run in a context: a running service (its API) or a local store; \`${PROGRAM} config set-context\` adds one, \`config use-context\` chooses it, --context NAME for one command. Without one, the SDWAN_* variables of the service (\`${PROGRAM} config\` shows them) say where the store is; when they do not, ./data in the current directory, where no store is ever created; commands that read never create one.`)}

${filled("Exit codes: 0 done; 2 usage, invalid input or configuration; 3 not found; 4 conflict; 5 the orchestrator refused the key; 6 the orchestrator failed (unreachable, timed out, rate-limited, garbage); 7 storage failure (or the context's service cannot be reached); 8 no store where it looked; 9 key-check: the key differs; 130/143 stopped by Ctrl-C/SIGTERM.")}
`;

export type Options = Record<string, string | boolean | undefined>;

/** What the command line asks for, or a usage error (its message, and the command whose help helps). */
export type Parsed =
  | { readonly kind: "text"; readonly text: string }
  | {
      readonly kind: "run";
      readonly command: CommandSpec;
      readonly args: readonly string[];
      readonly options: Options;
    };
export interface UsageError {
  readonly message: string;
  readonly command?: CommandSpec;
  /** What helps, when it is not the command's help. */
  readonly hint?: string;
}

// The options of a command as parseArgs takes them, with --help.
const parserOptions = (command: CommandSpec) => ({
  ...Object.fromEntries(
    Object.entries(optionsOf(command)).map(([option, spec]) => [
      option,
      {
        type: spec.type,
        ...(spec.short === undefined ? {} : { short: spec.short }),
        ...(spec.multiple === true ? { multiple: true } : {}),
      },
    ]),
  ),
  help: { type: "boolean" as const, short: "h" },
});

/** A group's help (`tokens`, `grants`, `webhooks`): its subcommands and what each does; undefined for a name that is none. */
const groupHelp = (group: string): string | undefined => {
  const members = ALL_COMMANDS.filter((one) => one.name.startsWith(`${group} `) && one.hidden !== true);
  return members.length === 0
    ? undefined
    : `${members.map((one) => `${PROGRAM} ${[one.name, ...one.args.map((arg) => `<${arg}>`)].join(" ")}\n${filled(one.summary, "    ")}`).join("\n")}\n\n\`${PROGRAM} help ${group} <subcommand>\` shows one's options.\n`;
};

export const parseCommandLine = (argv: readonly string[]): E.Either<UsageError, Parsed> => {
  const [name, ...rest] = argv;
  if (name === undefined || name === "--help" || name === "-h") return E.right({ kind: "text", text: help() });
  if (name === "--version" || name === "-V" || name === "version")
    return E.right({ kind: "text", text: `${PROGRAM} ${VERSION}\n` });
  if (name === "help") {
    // `help`, `help --help` and `help help` are the general help; `help <command>` that command's.
    const [topic] = rest;
    if (topic === undefined || topic === "--help" || topic === "-h" || topic === "help")
      return E.right({ kind: "text", text: help() });
    // A subcommand first: `help config set-context` is set-context's help, not config's.
    const command = (rest[1] === undefined ? undefined : findCommand(`${topic} ${rest[1]}`)) ?? findCommand(topic);
    // `help tokens`: the group's subcommands.
    const group = command === undefined ? groupHelp(topic) : undefined;
    if (group !== undefined) return E.right({ kind: "text", text: group });
    return command === undefined
      ? E.left({ message: unknownCommand(topic) })
      : E.right({ kind: "text", text: commandHelp(command) });
  }
  // `config <subcommand>`: the contexts (`config` alone shows the settings); `tokens`, `grants`, `webhooks` likewise.
  const grouped = name === "config" || (ADMIN_GROUPS as readonly string[]).includes(name);
  const subcommand = grouped ? findCommand(`${name} ${rest[0]}`) : undefined;
  if (subcommand !== undefined) rest.shift();
  else if (name !== "config" && grouped && (rest[0] === "--help" || rest[0] === "-h"))
    return E.right({ kind: "text", text: groupHelp(name) ?? help() });
  else if (name !== "config" && grouped) {
    const known = ALL_COMMANDS.filter((one) => one.name.startsWith(`${name} `)).map((one) =>
      one.name.slice(name.length + 1),
    );
    return E.left({
      message: `${name}: ${rest[0] === undefined || rest[0].startsWith("-") ? "needs a subcommand" : `unknown subcommand '${rest[0]}'`}: ${known.join(", ")}`,
      hint: `see '${PROGRAM} help ${name}'`,
    });
  }
  const command = subcommand ?? findCommand(name);
  if (command === undefined)
    return E.left({
      message: name.startsWith("-")
        ? `unknown option ${name}${didYouMean(name, ["--help", "--version"])}`
        : unknownCommand(name),
    });
  // Not strict: every option token is checked here, so that errors are in this CLI's words, not Node's.
  const specs = parserOptions(command);
  const { values, positionals, tokens } = parseArgs({
    args: [...rest],
    options: specs,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const spec = (specs as Record<string, { type: "string" | "boolean" } | undefined>)[token.name];
    if (spec === undefined)
      return E.left({
        message: `unknown option ${token.rawName}${didYouMean(
          token.rawName,
          Object.keys(specs).map((option) => `--${option}`),
        )}`,
        command,
      });
    if (
      spec.type === "string" &&
      (token.value === undefined || (token.inlineValue !== true && token.value.startsWith("-")))
    ) {
      return E.left({ message: `${token.rawName} needs a value`, command });
    }
    if (spec.type === "boolean" && token.value !== undefined)
      return E.left({ message: `${token.rawName} takes no value`, command });
  }
  if (values["help"] === true) return E.right({ kind: "text", text: commandHelp(command) });
  if (positionals.length !== command.args.length) {
    return E.left({
      message:
        command.args.length === 0 ? `takes no arguments` : `expects ${command.args.map((arg) => `<${arg}>`).join(" ")}`,
      command,
    });
  }
  return E.right({ kind: "run", command, args: positionals, options: values as Options });
};

/**
 * The help texts, by what asks for them: "" the general help, "--version" the version's line, and each
 * single-word command's own help by its name. The bundle carries them, made at build time, so that `--help`
 * prints without loading a command.
 */
export const staticHelp = (): Readonly<Record<string, string>> => ({
  "": help(),
  "--version": `${PROGRAM} ${VERSION}\n`,
  ...Object.fromEntries(
    ALL_COMMANDS.filter((command) => command.hidden !== true && !command.name.includes(" ")).map((command) => [
      command.name,
      commandHelp(command),
    ]),
  ),
  ...Object.fromEntries(ADMIN_GROUPS.map((group) => [group, groupHelp(group) ?? ""])),
});
