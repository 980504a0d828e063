import type { CommandSpec } from "./command.js";

const PROGRAM = "sdwan-connections";

// A command's options, and its subcommands' names (`config use-context`: `use-context` after `config`).
const wordsOf = (command: CommandSpec, commands: readonly CommandSpec[]): string =>
  [
    ...commands
      .filter((other) => other.name.startsWith(`${command.name} `))
      .map((other) => other.name.slice(command.name.length + 1)),
    ...Object.keys(command.options).map((option) => `--${option}`),
    "--help",
  ].join(" ");

// What completes an option's value, from what its help calls it: one of its listed values (`table|json|yaml`),
// a file, a stored alias; anything else (a URL, a version, a time) is the person's to type: nothing offered.
const valueCompletion = (value: string | undefined): string =>
  value === "file"
    ? `COMPREPLY=($(compgen -f -- "$current")); return`
    : value === "alias"
      ? `words="$(${PROGRAM} __complete aliases 2>/dev/null)"`
      : `words="${value?.includes("|") === true ? value.split("|").join(" ") : ""}"`;

// A command's options that take a value, as `case` patterns of the command and the word before the cursor.
const optionValueCases = (command: CommandSpec): string[] =>
  Object.entries(command.options)
    .filter(([, spec]) => spec.type === "string")
    .map(
      ([name, spec]) =>
        `    ${[`--${name}`, ...(spec.short === undefined ? [] : [`-${spec.short}`])].map((option) => `"${command.name} ${option}"`).join("|")}) ${valueCompletion(spec.value)} ;;`,
    );

/**
 * A bash completion script (also read by zsh through bashcompinit): commands, each command's options, an
 * option's values (listed ones, files for -f, aliases), and for a command's existing <alias> the stored
 * aliases, which the script asks of the CLI itself (`sdwan-connections __complete aliases`: no orchestrator is
 * asked); `add`, which names a new connection, is offered none.
 */
export const bashCompletion = (commands: readonly CommandSpec[]): string => {
  const shown = commands.filter((command) => command.hidden !== true && !command.name.includes(" "));
  const optionWords = (command: CommandSpec) => wordsOf(command, commands);
  // Groups that are no command of their own (`tokens`, `grants`, `webhooks`): their subcommands, then each one's options.
  const grouped = commands.filter((command) => command.hidden !== true && command.name.includes(" "));
  const groups = [...new Set(grouped.map((command) => command.name.split(" ")[0] as string))].filter(
    (group) => !shown.some((command) => command.name === group),
  );
  const groupCases = groups.map((group) => {
    const members = grouped.filter((command) => command.name.startsWith(`${group} `));
    const sub = (command: CommandSpec) => command.name.slice(group.length + 1);
    return `    ${group}) if [ "$COMP_CWORD" -eq 2 ]; then words="${members.map(sub).join(" ")}"; else case "\${COMP_WORDS[2]}" in
${members.map((command) => `      ${sub(command)}) words="${optionWords(command)}" ;;`).join("\n")}
      *) words="" ;;
      esac; fi ;;`;
  });
  // An option's values in a group: by the group and the option (its subcommands name their options alike).
  const groupValueCases = grouped
    .filter((command) => groups.includes(command.name.split(" ")[0] as string))
    .flatMap((command) => optionValueCases({ ...command, name: command.name.split(" ")[0] as string }));
  const cases = shown
    .map((command) =>
      command.args[0]?.includes("|") === true
        ? `    ${command.name}) words="${command.args[0].split("|").join(" ")} ${optionWords(command)}" ;;`
        : command.args[0] === "alias" && command.namesNewAlias !== true
          ? `    ${command.name}) if [ "$COMP_CWORD" -eq 2 ]; then words="$(${PROGRAM} __complete aliases 2>/dev/null)"; else words="${optionWords(command)}"; fi ;;`
          : `    ${command.name}) words="${optionWords(command)}" ;;`,
    )
    .join("\n");
  return `# ${PROGRAM} completion for bash. Install: ${PROGRAM} completion bash > /etc/bash_completion.d/${PROGRAM}
# (zsh: autoload -U +X bashcompinit && bashcompinit, then source this file)
_${PROGRAM.replace(/-/g, "_")}() {
  local current="\${COMP_WORDS[COMP_CWORD]}" previous="\${COMP_WORDS[COMP_CWORD-1]}" words
  if [ "$COMP_CWORD" -eq 1 ]; then
    words="${[...shown.map((command) => command.name), ...groups, "help", "--help", "--version"].join(" ")}"
  else
    case "\${COMP_WORDS[1]} $previous" in
${[...shown.flatMap(optionValueCases), ...new Set(groupValueCases)].join("\n")}
    *)
    case "\${COMP_WORDS[1]}" in
${[cases, ...groupCases].join("\n")}
    help) words="${[...shown.map((command) => command.name), ...groups].join(" ")}" ;;
    *) words="" ;;
    esac ;;
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$current"))
}
complete -F _${PROGRAM.replace(/-/g, "_")} ${PROGRAM}
`;
};

/** The same script, prefixed with what zsh needs to read a bash completion. */
export const zshCompletion = (commands: readonly CommandSpec[]): string =>
  `autoload -U +X bashcompinit && bashcompinit\n${bashCompletion(commands)}`;
