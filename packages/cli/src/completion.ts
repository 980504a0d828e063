import { COMMANDS } from "./commands.js";

const PROGRAM = "sdwan-connections";

const wordsOf = (name: string): string => {
  const command = COMMANDS.find((candidate) => candidate.name === name);
  return command === undefined ? "" : [...Object.keys(command.options).map((option) => `--${option}`), "--help"].join(" ");
};

/** A bash completion script (also read by zsh through bashcompinit): commands, then each command's options. */
export const bashCompletion = (): string => {
  const cases = COMMANDS.map((command) => `    ${command.name}) words="${wordsOf(command.name)}" ;;`).join("\n");
  return `# ${PROGRAM} completion for bash. Install: ${PROGRAM} completion bash > /etc/bash_completion.d/${PROGRAM}
# (zsh: autoload -U +X bashcompinit && bashcompinit, then source this file)
_${PROGRAM.replace(/-/g, "_")}() {
  local current="\${COMP_WORDS[COMP_CWORD]}" words
  if [ "$COMP_CWORD" -eq 1 ]; then
    words="${[...COMMANDS.map((command) => command.name), "completion", "help", "--help"].join(" ")}"
  else
    case "\${COMP_WORDS[1]}" in
${cases}
    completion) words="bash zsh" ;;
    help) words="${COMMANDS.map((command) => command.name).join(" ")}" ;;
    *) words="" ;;
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$current"))
}
complete -F _${PROGRAM.replace(/-/g, "_")} ${PROGRAM}
`;
};

/** The same script, prefixed with what zsh needs to read a bash completion. */
export const zshCompletion = (): string => `autoload -U +X bashcompinit && bashcompinit\n${bashCompletion()}`;
