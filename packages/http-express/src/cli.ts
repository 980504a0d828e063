#!/usr/bin/env node
/**
 * The command-line driver: the same use cases, store and configuration
 * (SDWAN_* environment variables) as the REST service, for scripts and for
 * operators on the host. It can run while the service uses the same store.
 */
import { pino } from "pino";
import { describeError, type ConnectionService, type DomainError } from "@sdwan-connections/core";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { loadConfig } from "./config.js";
import { StartupError } from "./di/modules/startup-error.js";
import { TOKENS } from "./di/tokens.js";
import { composeCore } from "./service.js";

const USAGE = `usage: sdwan-connections <command> [arguments]

  list                                        the connections, as JSON
  add <alias> <orchestratorUrl> [--dry-run] [--force]
  update <alias> [--url <orchestratorUrl>] [--key] [--force]
  validate <alias> [--verbose]
  delete <alias>
  customers <alias>                           a partner connection's customers, as JSON
  rotate-master-key                           re-seal every stored apiKey with SDWAN_MASTER_KEY
                                              (old keys listed in SDWAN_MASTER_KEY_PREVIOUS)

The apiKey (add, and update --key) is read from standard input, never from the
command line, where other users of the machine could read it. Configuration
comes from the same SDWAN_* environment variables as the service.
`;

/** Exit codes, one per kind of failure, so scripts can tell them apart. */
export const exitCodeOf = (error: DomainError): number => {
  switch (error._tag) {
    case "InvalidInput":
      return 2;
    case "NotFound":
      return 3;
    case "AlreadyExists":
    case "NotAPartner":
      return 4;
    case "ValidationRefused":
      return 5;
    case "OrchestratorRejected":
    case "OrchestratorUnreachable":
    case "OrchestratorTimedOut":
    case "OrchestratorRateLimited":
    case "OrchestratorGarbage":
      return 6;
    case "StorageFailure":
      return 7;
  }
};

class UsageError extends Error {}

const readStandardInput = async (): Promise<string> => {
  if (process.stdin.isTTY) process.stderr.write("apiKey (then Enter, Ctrl-D): ");
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // One trailing line break is the shell's, not the key's.
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
};

/** The positional arguments and the flags of a command line; `valued` flags take the next argument. */
const parse = (args: readonly string[], allowed: readonly string[], valued: readonly string[] = []) => {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (!arg.startsWith("--")) positional.push(arg);
    else if (![...allowed, ...valued].includes(arg)) throw new UsageError(`unknown option ${arg}`);
    else if (valued.includes(arg)) {
      const value = args[(i += 1)];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      flags.set(arg, value);
    } else flags.set(arg, true);
  }
  return { positional, flags };
};

const exactly = (positional: readonly string[], names: readonly string[]): string[] => {
  if (positional.length !== names.length) throw new UsageError(`expected ${names.map((n) => `<${n}>`).join(" ") || "no arguments"}`);
  return [...positional];
};

type Outcome = TaskEither<DomainError, string>;

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** Turns a command line into a use-case (or store) call whose success is the text to print. */
const commandFor = async (service: ConnectionService, [command, ...args]: readonly string[]): Promise<Outcome> => {
  const map =
    <A>(task: TaskEither<DomainError, A>, text: (value: A) => string): Outcome =>
    async () => {
      const result = await task();
      return result._tag === "Left" ? result : { _tag: "Right", right: text(result.right) };
    };
  switch (command) {
    case "list": {
      exactly(parse(args, []).positional, []);
      return map(service.listConnections(), (list) => json(list.map(({ alias, orchestratorUrl }) => ({ alias, orchestratorUrl }))));
    }
    case "add": {
      const { positional, flags } = parse(args, ["--dry-run", "--force"]);
      const [alias, orchestratorUrl] = exactly(positional, ["alias", "orchestratorUrl"]);
      const apiKey = await readStandardInput();
      return map(
        service.addConnection({ alias, orchestratorUrl, apiKey }, { dryRun: flags.has("--dry-run"), force: flags.has("--force") }),
        (outcome) => (outcome === "dry-run" ? "Dry run successful\n" : "Connection successfully added\n"),
      );
    }
    case "update": {
      const { positional, flags } = parse(args, ["--key", "--force"], ["--url"]);
      const [alias] = exactly(positional, ["alias"]);
      const url = flags.get("--url");
      const body = {
        ...(typeof url === "string" ? { orchestratorUrl: url } : {}),
        ...(flags.has("--key") ? { apiKey: await readStandardInput() } : {}),
      };
      return map(service.updateConnection(alias as string, body, { force: flags.has("--force") }), () => "Connection successfully updated\n");
    }
    case "validate": {
      const { positional, flags } = parse(args, ["--verbose"]);
      const [alias] = exactly(positional, ["alias"]);
      return map(service.validateConnection(alias as string), (result) =>
        json(flags.has("--verbose") ? result : { alias: result.alias, orchestratorUrl: result.orchestratorUrl, valid: result.valid }),
      );
    }
    case "delete": {
      const [alias] = exactly(parse(args, []).positional, ["alias"]);
      return map(service.deleteConnection(alias as string), () => "Connection successfully deleted\n");
    }
    case "customers": {
      const [alias] = exactly(parse(args, []).positional, ["alias"]);
      return map(service.listPartnerCustomers(alias as string), json);
    }
    case "rotate-master-key": {
      exactly(parse(args, []).positional, []);
      return map(service.rotateMasterKey(), ({ rotated, total }) => `Re-sealed ${rotated} of ${total} apiKeys with the current master key\n`);
    }
    default:
      throw new UsageError(command === undefined ? "no command" : `unknown command ${command}`);
  }
};

const finish = (code: number, stream: NodeJS.WriteStream, text: string): never => {
  stream.write(text);
  process.exit(code);
};

// A reader that stops early (`| head`) is not an error of ours.
process.stdout.on("error", (error: NodeJS.ErrnoException) => process.exit(error.code === "EPIPE" ? 0 : 1));

const args = process.argv.slice(2).filter((arg) => arg !== "--"); // pnpm passes a "--" through
if (args.length === 0 || args[0] === "--help" || args[0] === "help") finish(0, process.stdout, USAGE);

const config = loadConfig(process.env);
if (config._tag === "Left") finish(2, process.stderr, `sdwan-connections: ${config.left}\n`);
else {
  try {
    // Warnings and errors only, on stderr: stdout carries the answer.
    const container = await composeCore(config.right, { logDestination: pino.destination(2) });
    const storage = await container.getAsync(TOKENS.Storage);
    const service = container.get(TOKENS.ConnectionService);
    let code = 0;
    try {
      const result = await (await commandFor(service, args))();
      if (result._tag === "Left") {
        process.stderr.write(`sdwan-connections: ${describeError(result.left)}\n`);
        code = exitCodeOf(result.left);
      } else process.stdout.write(result.right);
    } finally {
      service.dispose();
      await storage.close();
      await container.unbindAllAsync();
    }
    process.exit(code);
  } catch (error) {
    if (error instanceof UsageError) finish(2, process.stderr, `sdwan-connections: ${error.message}\n\n${USAGE}`);
    finish(2, process.stderr, `sdwan-connections: ${error instanceof StartupError ? error.message : `cannot start: ${(error as Error).message}`}\n`);
  }
}
