/** The process's command run: signals, the terminal, and the exit code (`main.ts` loads it for all but help). */
import { runCli } from "./cli.js";
import { readSecret } from "./secret-input.js";
import { standardOutput } from "./standard-output.js";

// A reader that stops early (`| head`) is not an error of ours (standard-output.ts).
const stdout = standardOutput();

// Ctrl-C and SIGTERM end the process at once, as by default, unless the command stops cleanly (apply):
// then it is told, and has a second to say what it did; a second signal ends it at once. (Kept registered,
// not `once`: a dependency's signal-exit handler re-raises the signal when it finds itself alone.)
let stopCleanly: ((exitCode: number) => void) | undefined;
let stopping = false;
// A signal while a prompt waits (its answer is not echoed) would leave the shell's prompt on the prompt's line.
let prompting = false;
for (const [signal, exitCode] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  process.on(signal, () => {
    if (prompting) {
      prompting = false;
      process.stderr.write("\n");
    }
    if (stopCleanly === undefined || stopping) process.exit(exitCode);
    stopping = true;
    stopCleanly(exitCode);
    setTimeout(() => process.exit(exitCode), 1000).unref();
  });
}

// The exit code once written answers are flushed (stdout to a pipe is asynchronous). No top-level await: the
// installed command is CommonJS (scripts/bundle.ts).
void runCli(process.argv.slice(2), {
  stdout,
  // process.stderr made only when a message is written: most commands write none.
  stderr: {
    write: (text) => process.stderr.write(text),
    get isTTY() {
      return process.stderr.isTTY;
    },
  },
  readSecret: async (prompt) => {
    // Without a terminal nothing is prompted.
    prompting = process.stdin.isTTY === true;
    try {
      return await readSecret({ stdin: process.stdin, prompt: process.stderr }, prompt);
    } finally {
      prompting = false;
    }
  },
  // Asked only where a password may be prompted for: process.stdin is made at its first use, a stream (a socket on
  // a pipe) that most commands never read.
  get interactive() {
    return process.stdin.isTTY === true;
  },
  onStop: (stop) => {
    stopCleanly = stop;
  },
}).then((code) => stdout.end(() => process.exit(code)));
