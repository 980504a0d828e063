import { describeError, type Actor, type Core, type DomainError } from "@sdwan-connections/core";
import type * as TE from "fp-ts/lib/TaskEither.js";
import type { KeySources } from "./configuration-file.js";
import { EXIT } from "./exit-codes.js";
import { cell, table } from "./output.js";

export interface OptionSpec {
  readonly type: "boolean" | "string";
  readonly description: string;
  /** For string options: what the value is, in the usage line. */
  readonly value?: string;
  /** A one-letter alias, e.g. `f` for `-f`. */
  readonly short?: string;
  /** Whether it may be given more than once (its values then come as a list). */
  readonly multiple?: boolean;
}

/** A refusal that names its own hint (`see '… config get-contexts'`) instead of the command's --help. */
export interface Refusal {
  readonly line: string;
  readonly hint: string;
}

/** What `--help`, completion and the parser know of a command. */
export interface CommandSpec {
  readonly name: string;
  readonly summary: string;
  readonly args: readonly string[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Notes below the usage in `--help`. */
  readonly notes?: string;
  /** Left out of the help and of completion (what the completion script itself calls). */
  readonly hidden?: boolean;
  /** Whether its <alias> names a new connection (add): completion offers no stored alias for it. */
  readonly namesNewAlias?: boolean;
  /** A write whose answer is a line of words wherever it goes; -o json or yaml asks for its result as data. */
  readonly saysInWords?: boolean;
}

export interface CommandInput {
  readonly service: Core;
  /** The positional arguments, as many as the command names. */
  readonly args: readonly string[];
  readonly options: Readonly<Record<string, string | boolean | undefined>>;
  /** The apiKey read before the command ran, when `readsKey` said it needs one (never from the command line, where other users could read it). */
  readonly apiKey: string | undefined;
  /** Who runs the command, for the audit trail. */
  readonly by: Actor;
  /** Where `env:` and `file:` key references may read, and what no key may be. */
  readonly keySources: KeySources;
  /** Aborted by SIGINT or SIGTERM (apply stops at once, saying what it applied; events stops following). */
  readonly signal: AbortSignal;
  /** Writes one item of a stream as it comes (events): its data for scripts, its line for people; a promise while the output is full. */
  readonly emit: (data: unknown, line: string) => void | Promise<void>;
}

/**
 * What a command answers: a message, or data that scripts get as JSON or YAML and people as text drawn for
 * the terminal's width; `exitCode` when it is not 0 although the command ran (a refused key, a mismatch).
 */
export type CommandOutput =
  | { readonly message: string; readonly exitCode?: number }
  | { readonly data: unknown; readonly forPeople: (width: number) => string; readonly exitCode?: number };

export interface Command extends CommandSpec {
  /** Shown while the orchestrator is asked (a progress indicator on a terminal, started once the key was read); undefined when it is not. */
  readonly progress?: string;
  /** Whether, with these options, the command reads an apiKey from standard input. */
  readonly readsKey?: (options: CommandInput["options"]) => boolean;
  /** Whether it may call an orchestrator (validations, customers); the others run with the composition's offline one. */
  readonly asksOrchestrator?: boolean;
  /** Whether it only reads the store (list, get): opened without a start's upkeep, left to the next writer. */
  readonly readsOnly?: boolean;
  /** Whether, with these options, it creates the store when there is none yet (the writes that add, never a dry run); the others refuse a missing store. */
  readonly createsStore?: (options: CommandInput["options"]) => boolean;
  run(input: CommandInput): TE.TaskEither<DomainError, CommandOutput>;
  /** An operation on the store itself (its master key), which no service's API offers: refused in a service's context. */
  readonly localOnly?: boolean;
  /** Whether SIGINT and SIGTERM are the command's to handle (through `signal`) rather than ending the process at once. */
  readonly stopsCleanly?: boolean;
  /** What it does, with these options, where no store is yet, without creating one (a dry run's plan); undefined: see `createsStore`. */
  readonly withoutStore?: (
    options: CommandInput["options"],
  ) => ((input: Omit<CommandInput, "service" | "apiKey">) => TE.TaskEither<DomainError, CommandOutput>) | undefined;
}

/** A command's answer in words. */
export const message = (text: string): CommandOutput => ({ message: text });

export const OUTPUT_OPTIONS: Record<string, OptionSpec> = {
  output: {
    type: "string",
    short: "o",
    value: "table|json|yaml",
    description: "the answer's format (default: table on a terminal, json otherwise)",
  },
  json: { type: "boolean", description: "the same as -o json" },
};

/** Headers and labels in words, for the fields of every answer. */
const LABELS: Record<string, string> = {
  alias: "Alias",
  orchestratorUrl: "Orchestrator URL",
  valid: "Valid",
  type: "Type",
  reason: "Reason",
  version: "Version",
  apiKeySetAt: "Key set at",
  apiKeyFingerprint: "Key fingerprint",
  apiKeyExpiresAt: "Key expires at",
  apiKeyExpirySource: "Key expiry from",
  apiKeyRef: "Key kept in",
  apiKeyDaysLeft: "Key days left",
  keyRenewal: "Key renewal",
  health: "Health",
  at: "At",
  actor: "Actor",
  action: "Action",
  fields: "Fields",
  forced: "Forced",
  validation: "Validation",
  outcome: "Outcome",
  failure: "Failure",
  id: "ID",
  name: "Name",
  enterpriseId: "Enterprise ID",
  city: "City",
  country: "Country",
  bastionState: "Bastion state",
};
export const label = (field: string): string => LABELS[field] ?? field;

// A record of one answer's fields (booleans as yes/no, missing values as -), labelled in words.
export const fieldsOf = (answer: Record<string, unknown>): (readonly [string, string])[] =>
  Object.entries(answer).map(([field, value]) => [
    label(field),
    cell(value as string | number | boolean | Date | null),
  ]);

/** A table, or what to say when it has no rows. */
export const tableOrNone = (
  none: string,
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  width: number,
): string => (rows.length === 0 ? `${none}\n` : table(headers, rows, width));

/**
 * An error in one line, in the CLI's words: an orchestrator that could not be asked is never said to have
 * refused (core's words for a refused validation, "did not accept", are kept for a refusal).
 */
export const describeForCli = (error: DomainError): string =>
  error._tag === "ValidationRefused" && error.cause._tag !== "OrchestratorRejected"
    ? `The orchestrator could not be asked about connection '${error.alias}', so nothing was changed: ${error.cause.reason}`
    : describeError(error);

/** The signal's exit code (128 + its number) once the apply was stopped by one. */
export const stopExitCode = (signal: AbortSignal): number | undefined =>
  signal.aborted ? (typeof signal.reason === "number" ? signal.reason : EXIT.interrupted) : undefined;
