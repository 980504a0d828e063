#!/usr/bin/env node
/**
 * The command-line driver's process: the same use cases, store and
 * configuration (SDWAN_* environment variables) as the REST service.
 */
import { runCli } from "./cli.js";

const readStdin = async (): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

// A reader that stops early (`| head`) is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => process.exit(error.code === "EPIPE" ? 0 : 1));

const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, readStdin });
// Written answers are flushed before exit: stdout to a pipe is asynchronous.
process.stdout.write("", () => process.exit(code));
