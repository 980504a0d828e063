#!/usr/bin/env node
/**
 * The command-line driver's process: the same use cases, store and
 * configuration (SDWAN_* environment variables) as the REST service.
 */
import { runCli } from "./cli.js";
import { readSecret } from "./secret-input.js";

// A reader that stops early (`| head`) is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => process.exit(error.code === "EPIPE" ? 0 : 1));

// Ctrl-C and SIGTERM end the process at once, as by default, unless the command stops cleanly (apply):
// then it is told, and has a second to say what it did.
let stopCleanly: ((exitCode: number) => void) | undefined;
for (const [signal, exitCode] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const) {
  process.once(signal, () => {
    if (stopCleanly === undefined) process.exit(exitCode);
    stopCleanly(exitCode);
    setTimeout(() => process.exit(exitCode), 1000).unref();
  });
}

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  readSecret: (prompt) => readSecret({ stdin: process.stdin, prompt: process.stderr }, prompt),
  onStop: (stop) => {
    stopCleanly = stop;
  },
});
// Written answers are flushed before exit: stdout to a pipe is asynchronous.
process.stdout.write("", () => process.exit(code));
