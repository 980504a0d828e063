import {
  ANSWER_TEXT,
  CUSTOMER_FIELDS,
  detailsAnswer,
  invalidInput,
  validationAnswer,
  versionFromText,
  type ConnectionService,
  type ConnectionSummary,
  type Customer,
  type CustomerList,
  type DomainError,
  type ExpectedVersions,
  type ValidationResult,
  describeError,
  planForNoStore,
  type Actor,
  type PlanStep,
  type StepResult,
  type AuditEntry,
  type AuditPage,
  type ConnectionHealth,
  type ConnectionDetails,
  type CloudEvent,
  type FeedItem,
  type KeyExpiry,
  aliasKey,
  daysLeft,
  stepName,
  type Grant,
  type GrantStep,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { pipe } from "fp-ts/lib/function.js";
import { exportConfiguration, KEY_VARIABLE_PREFIX, readConfiguration, type KeySources } from "./configuration-file.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { cell, record, table } from "./output.js";

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
  readonly service: ConnectionService;
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

const message = (text: string): CommandOutput => ({ message: text });

export const OUTPUT_OPTIONS: Record<string, OptionSpec> = {
  output: {
    type: "string",
    short: "o",
    value: "table|json|yaml",
    description: "the answer's format (default: table on a terminal, json otherwise)",
  },
  json: { type: "boolean", description: "the same as -o json" },
};
const WRITE_OUTPUT_OPTIONS: Record<string, OptionSpec> = {
  ...OUTPUT_OPTIONS,
  output: {
    ...(OUTPUT_OPTIONS["output"] as OptionSpec),
    description: "the result's format (default: a line of words; json or yaml: {alias, outcome, message})",
  },
};
// A write's words: the interface's (docs/interface.md §1), but an update that changed nothing says so.
const WRITE_TEXT = {
  ...ANSWER_TEXT,
  unchanged: "Connection unchanged: it already had this URL and key",
  deleted: "Connection successfully deleted",
} as const;

/** A write's result: its words for people (the default), `{alias, outcome, message}` for -o json or yaml. */
const writeOutput = (alias: string, outcome: keyof typeof WRITE_TEXT): CommandOutput => {
  const data = { alias, outcome, message: WRITE_TEXT[outcome] };
  return { data, forPeople: () => `${data.message}\n` };
};

const KEY_NOTE =
  "The apiKey is read from standard input: typed at a prompt, not shown, ended by Enter; or piped in. With --api-key-ref the service reads it where it is kept (admin only), file:NAME in its SDWAN_APIKEY_DIR or env:SDWAN_APIKEY_…, whenever it is used; nothing is read here.";
// Keys kept elsewhere (SPEC §12): the reference goes to the service as written, which reads the key when used.
const KEY_REF_OPTION = {
  "api-key-ref": {
    type: "string",
    value: "file:NAME|env:NAME",
    description: "where the service reads the key instead of storing it (admin only)",
  },
} as const;
// Both given (update --key --api-key-ref): the service refuses them, naming both.
const keyOrReference = (apiKey: string | undefined, options: CommandInput["options"]) => ({
  ...(apiKey === undefined ? {} : { apiKey }),
  ...(typeof options["api-key-ref"] === "string" ? { apiKeyRef: options["api-key-ref"] } : {}),
});

const IF_MATCH_OPTION: Record<string, OptionSpec> = {
  "if-match": {
    type: "string",
    value: "version",
    description: "only if the connection is still at this version (get shows it)",
  },
};

// --if-match as the use case's option; anything but a positive integer is a usage error.
const expectedVersions = (
  options: CommandInput["options"],
): E.Either<DomainError, { readonly expectedVersions?: ExpectedVersions }> => {
  const value = options["if-match"];
  if (value === undefined) return E.right({});
  return pipe(
    typeof value === "string" ? versionFromText(value) : O.none,
    E.fromOption(() =>
      invalidInput([{ field: "--if-match", message: "must be a connection's version, a positive integer" }]),
    ),
    E.map((version) => ({ expectedVersions: [version] })),
  );
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
const label = (field: string): string => LABELS[field] ?? field;

// A record of one answer's fields (booleans as yes/no, missing values as -), labelled in words.
const fieldsOf = (answer: Record<string, unknown>): (readonly [string, string])[] =>
  Object.entries(answer).map(([field, value]) => [label(field), cell(value as string | number | boolean | null)]);

/** A table, or what to say when it has no rows. */
const tableOrNone = (
  none: string,
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  width: number,
): string => (rows.length === 0 ? `${none}\n` : table(headers, rows, width));

const AUDIT_COLUMNS = [
  "at",
  "actor",
  "action",
  "alias",
  "fields",
  "forced",
  "validation",
  "outcome",
  "failure",
] as const;
const auditCell = (entry: AuditEntry, column: (typeof AUDIT_COLUMNS)[number]): string => {
  const value = entry[column];
  return value instanceof Date
    ? value.toISOString()
    : Array.isArray(value)
      ? value.join(",")
      : cell(value as string | boolean | null);
};

const SYMBOLS: Record<PlanStep["action"], string> = { create: "+", update: "~", delete: "-", unchanged: "=" };
const describePlan = ({ steps, grants }: { steps: readonly PlanStep[]; grants: readonly GrantStep[] }): string => {
  const count = (action: PlanStep["action"]) => steps.filter((step) => step.action === action).length;
  const grantCount = (action: GrantStep["action"]) => grants.filter((step) => step.action === action).length;
  return [
    `Plan: ${count("create")} to create, ${count("update")} to update, ${count("delete")} to delete, ${count("unchanged")} unchanged`,
    ...steps.map(
      (step) =>
        `  ${SYMBOLS[step.action]} ${step.action.padEnd(9)} ${step.alias}${step.action === "update" ? ` (${step.fields.join(", ")})` : ""}${"keySource" in step && step.keySource !== undefined ? `, key from ${step.keySource}` : ""}${"keyChecked" in step ? " (not set: key not checked)" : ""}`,
    ),
    ...(grants.length === 0
      ? []
      : [
          `Grants: ${grantCount("create")} to create, ${grantCount("delete")} to delete, ${grantCount("unchanged")} unchanged`,
          ...grants.map((step) => `  ${SYMBOLS[step.action]} ${step.action.padEnd(9)} ${stepName(step)}`),
        ]),
    "",
  ].join("\n");
};
/**
 * An error in one line, in the CLI's words: an orchestrator that could not be asked is never said to have
 * refused (core's words for a refused validation, "did not accept", are kept for a refusal).
 */
export const describeForCli = (error: DomainError): string =>
  error._tag === "ValidationRefused" && error.cause._tag !== "OrchestratorRejected"
    ? `The orchestrator could not be asked about connection '${error.alias}', so nothing was changed: ${error.cause.reason}`
    : describeError(error);

const resultView = (result: StepResult) =>
  result.outcome === "failed"
    ? { outcome: result.outcome, reason: describeForCli(result.error) }
    : { outcome: result.outcome };
const NOT_APPLIED: Partial<Record<StepResult["outcome"], string>> = {
  failed: "not applied",
  interrupted: "interrupted (under way when stopped: it may or may not have been applied)",
  skipped: "not applied (stopped)",
};
const describeResults = (results: readonly StepResult[]): string => {
  const lines = results
    .filter((result) => result.outcome !== "unchanged")
    .map((result) =>
      result.outcome === "failed"
        ? `  not applied: ${result.step.action} ${stepName(result.step)}: ${describeForCli(result.error)}`
        : `  ${NOT_APPLIED[result.outcome] ?? result.outcome}: ${result.step.action} ${stepName(result.step)}`,
    );
  const count = (outcome: StepResult["outcome"]) => results.filter((result) => result.outcome === outcome).length;
  const stopped = count("interrupted") + count("skipped");
  return [
    `Result: ${count("applied")} applied, ${count("failed")} not applied${stopped === 0 ? "" : `, ${stopped} not applied because the apply was stopped (${count("interrupted")} of them under way)`}`,
    ...lines,
    "",
  ].join("\n");
};

/** The exit code of an apply: stopped, else the first failure's, else 0. */
const applyExitCode = (results: readonly StepResult[], stopCode: number | undefined): number => {
  const failed = results.find((result) => result.outcome === "failed");
  return stopCode ?? (failed?.outcome === "failed" ? exitCodeOf(failed.error) : EXIT.ok);
};

// How many steps of an apply run at once: forced steps are only writes, which the embedded store commits
// together; validated ones each ask their orchestrator, kept to a few at a time.
const APPLY_CONCURRENCY = { forced: 32_768, validated: 8 };

/** The signal's exit code (128 + its number) once the apply was stopped by one. */
export const stopExitCode = (signal: AbortSignal): number | undefined =>
  signal.aborted ? (typeof signal.reason === "number" ? signal.reason : EXIT.interrupted) : undefined;

const CUSTOMER_COLUMNS: readonly (keyof Customer)[] = ["id", "name", "enterpriseId", "city", "country", "bastionState"];

// Whole days before a key's known expiry (SPEC §10), as the console shows them; null when the expiry is not known.
const keyDaysLeft = (expiry: KeyExpiry | undefined): number | null =>
  expiry === undefined ? null : daysLeft(expiry.expiresAt, new Date());

const detailsOutput = (details: ConnectionDetails): CommandOutput => {
  const data = detailsAnswer(details);
  // People also see the days left, beside the date; scripts get the interface's answer.
  const { apiKeyExpirySource, ...rest } = data;
  const shown = { ...rest, apiKeyDaysLeft: keyDaysLeft(details.apiKeyExpiry), apiKeyExpirySource };
  return { data, forPeople: (width) => record(fieldsOf(shown), width) };
};

const WIDE_COLUMNS = [
  "alias",
  "orchestratorUrl",
  "health",
  "apiKeyExpiresAt",
  "apiKeyDaysLeft",
  "apiKeyExpirySource",
] as const;

/** `list -o wide`: each connection with its health and its key's expiry (date, days left, where it is known from). */
const wideList = (service: ConnectionService): TE.TaskEither<DomainError, CommandOutput> =>
  pipe(
    TE.Do,
    TE.apS("health", service.connectionsHealth()),
    TE.apS(
      "connections",
      pipe(
        service.listConnections(),
        // One at a time: through a service each is a request.
        TE.flatMap(TE.traverseSeqArray(({ alias }) => service.describeConnection(alias))),
      ),
    ),
    TE.map(({ health, connections }): CommandOutput => {
      const data = connections.map((details) => ({
        ...detailsAnswer(details),
        apiKeyDaysLeft: keyDaysLeft(details.apiKeyExpiry),
        health: health.find((entry) => aliasKey(entry.alias) === aliasKey(details.alias))?.state ?? "unknown",
      }));
      return {
        data,
        forPeople: (width) =>
          tableOrNone(
            "No connections.",
            WIDE_COLUMNS.map(label),
            data.map((row) => WIDE_COLUMNS.map((column) => cell(row[column]))),
            width,
          ),
      };
    }),
  );

/**
 * apply: the file read, planned by `plan`, then printed (a dry run) or carried out through `service`; a dry
 * run needs no service (where no store is yet, it has none).
 */
const applyConfiguration = (
  { options, keySources, by, signal }: Omit<CommandInput, "service" | "apiKey">,
  plan: ConnectionService["planConfiguration"],
  service?: ConnectionService,
): TE.TaskEither<DomainError, CommandOutput> =>
  typeof options["file"] !== "string"
    ? TE.left(invalidInput([{ field: "--file", message: "is required: apply -f FILE" }]))
    : pipe(
        readConfiguration(options["file"], keySources, { requireKeys: options["require-keys"] === true }),
        TE.flatMap(({ connections, grants }) =>
          plan(connections, { prune: options["prune"] === true, ...(grants === undefined ? {} : { grants }) }),
        ),
        TE.flatMap((planned) =>
          options["dry-run"] === true || service === undefined
            ? TE.right<DomainError, CommandOutput>({
                data: { plan: planned.steps, grants: planned.grants },
                forPeople: () => describePlan(planned),
              })
            : TE.fromTask(async (): Promise<CommandOutput> => {
                const force = options["force"] === true;
                const results = await service.applyPlan(planned, {
                  force,
                  by,
                  signal,
                  concurrency: force ? APPLY_CONCURRENCY.forced : APPLY_CONCURRENCY.validated,
                });
                return {
                  data: {
                    plan: planned.steps,
                    grants: planned.grants,
                    results: results.map((result) => ({
                      action: result.step.action,
                      ...("grant" in result.step ? { grant: result.step.grant } : { alias: result.step.alias }),
                      ...resultView(result),
                    })),
                  },
                  forPeople: () => `${describePlan(planned)}\n${describeResults(results)}`,
                  exitCode: applyExitCode(results, stopExitCode(signal)),
                };
              }),
        ),
      );

/** The options given, under the names the use case's query knows them by (`--since-id` is `lastEventId`). */
const queryOf = (
  options: CommandInput["options"],
  names: Readonly<Record<string, string>>,
): Record<string, string | boolean> =>
  Object.fromEntries(
    Object.entries(names).flatMap(([option, name]) =>
      options[option] === undefined ? [] : [[name, options[option] as string | boolean]],
    ),
  );

/** One event in words: when, what, which connection, and what it says. */
const eventLine = (event: CloudEvent): string => {
  const what = event.type.replace("org.sdwan-connections.", "");
  const data = event.data as Record<string, unknown>;
  const said =
    "from" in data
      ? `${String(data["from"])} → ${String(data["to"])}${data["reason"] === null ? "" : `: ${String(data["reason"])}`}`
      : "daysLeft" in data
        ? `key expires ${String(data["expiresAt"])} (${String(data["daysLeft"])} days left, ${String(data["source"])})`
        : `version ${String(data["version"])}${(data["fields"] as string[]).length === 0 ? "" : `, ${(data["fields"] as string[]).join(", ")}`}, by ${String(data["actor"])}${data["forced"] === true ? ", forced" : ""}`;
  return `${event.time}  ${what}  ${event.subject}  ${said}`;
};

/** Every command, in the order `--help` lists them. Their names, arguments, options and exit codes are the CLI's interface. */
export const COMMANDS: readonly Command[] = [
  {
    name: "list",
    summary: "the connections (alias and orchestrator URL; -o wide adds health and key expiry)",
    args: [],
    options: {
      ...OUTPUT_OPTIONS,
      output: {
        type: "string",
        short: "o",
        value: "table|wide|json|yaml",
        description:
          "the answer's format (default: table on a terminal, json otherwise); wide: a table with each connection's health and its key's expiry, days left and source",
      },
    },
    run: ({ service, options }) =>
      options["output"] === "wide"
        ? wideList(service)
        : TE.map((connections: readonly ConnectionSummary[]): CommandOutput => {
            const data = connections.map(({ alias, orchestratorUrl }) => ({ alias, orchestratorUrl }));
            return {
              data,
              forPeople: (width) =>
                tableOrNone(
                  "No connections.",
                  [label("alias"), label("orchestratorUrl")],
                  data.map(({ alias, orchestratorUrl }) => [alias, orchestratorUrl]),
                  width,
                ),
            };
          })(service.listConnections()),
  },
  {
    name: "get",
    summary:
      "one connection as stored: URL, version, when its key was set, the key's fingerprint (the orchestrator is not asked)",
    args: ["alias"],
    options: OUTPUT_OPTIONS,
    run: ({ service, args: [alias] }) => TE.map(detailsOutput)(service.describeConnection(alias as string)),
  },
  {
    name: "add",
    summary: "add a connection, validated with its orchestrator first",
    namesNewAlias: true,
    asksOrchestrator: true,
    args: ["alias", "orchestratorUrl"],
    options: {
      ...KEY_REF_OPTION,
      "dry-run": { type: "boolean", description: "validate only; store nothing" },
      force: { type: "boolean", description: "store without asking the orchestrator" },
      ...WRITE_OUTPUT_OPTIONS,
    },
    saysInWords: true,
    progress: "asking the orchestrator",
    readsKey: (options) => typeof options["api-key-ref"] !== "string",
    createsStore: (options) => options["dry-run"] !== true,
    notes: KEY_NOTE,
    run: ({ service, args: [alias, orchestratorUrl], options, apiKey, by }) =>
      TE.map((outcome: keyof typeof WRITE_TEXT) => writeOutput(alias as string, outcome))(
        service.addConnection(
          { alias, orchestratorUrl, ...keyOrReference(apiKey, options) },
          { dryRun: options["dry-run"] === true, force: options["force"] === true, by },
        ),
      ),
  },
  {
    name: "update",
    summary: "change a connection's URL and/or apiKey, validated first",
    asksOrchestrator: true,
    args: ["alias"],
    options: {
      url: { type: "string", value: "orchestratorUrl", description: "the new orchestrator URL" },
      key: { type: "boolean", description: "read a new apiKey from standard input" },
      ...KEY_REF_OPTION,
      "dry-run": { type: "boolean", description: "validate the changed connection only; store nothing" },
      force: { type: "boolean", description: "store without asking the orchestrator" },
      ...IF_MATCH_OPTION,
      ...WRITE_OUTPUT_OPTIONS,
    },
    saysInWords: true,
    progress: "asking the orchestrator",
    readsKey: (options) => options["key"] === true,
    notes: KEY_NOTE,
    run: ({ service, args: [alias], options, apiKey, by }) =>
      pipe(
        TE.fromEither(expectedVersions(options)),
        TE.flatMap((expected) =>
          service.updateConnection(
            alias as string,
            {
              ...(typeof options["url"] === "string" ? { orchestratorUrl: options["url"] } : {}),
              ...keyOrReference(apiKey, options),
            },
            { dryRun: options["dry-run"] === true, force: options["force"] === true, ...expected, by },
          ),
        ),
        TE.map((outcome: keyof typeof WRITE_TEXT) => writeOutput(alias as string, outcome)),
      ),
  },
  {
    name: "validate",
    summary: "ask the orchestrator whether a connection's apiKey is accepted",
    asksOrchestrator: true,
    args: ["alias"],
    options: {
      verbose: {
        type: "boolean",
        description: "add the key's type or why it is not valid, the version and when the key was set",
      },
      ...OUTPUT_OPTIONS,
    },
    progress: "asking the orchestrator",
    notes:
      "Exits 0 when the key is valid, 5 when the orchestrator refused it, 6 when the orchestrator could not be asked (unreachable, timed out, rate-limited, garbage).",
    run: ({ service, args: [alias], options }) =>
      TE.map((result: ValidationResult): CommandOutput => {
        const data = validationAnswer(result, options["verbose"] === true);
        const exitCode = result.valid
          ? EXIT.ok
          : result.failure === "OrchestratorRejected"
            ? EXIT.validationRefused
            : EXIT.orchestrator;
        // People always see why a key is not valid; scripts get the interface's answer (the reason with --verbose).
        const shown = result.valid || "reason" in data ? data : { ...data, reason: result.reason };
        return { data, forPeople: (width) => record(fieldsOf(shown), width), exitCode };
      })(service.validateConnection(alias as string)),
  },
  {
    name: "key-check",
    summary: "tell whether a connection's stored apiKey is the one given, without showing it",
    args: ["alias"],
    options: OUTPUT_OPTIONS,
    readsKey: () => true,
    notes: `${KEY_NOTE} Compared in constant time; the orchestrator is not asked. Exits 0 when they match, 9 when they differ.`,
    run: ({ service, args: [alias], apiKey, by }) =>
      TE.map(({ matches }: { readonly matches: boolean }): CommandOutput => ({
        data: { matches },
        forPeople: () => (matches ? "The key matches the stored one.\n" : "The key differs from the stored one.\n"),
        exitCode: matches ? EXIT.ok : EXIT.keyMismatch,
      }))(service.checkApiKey(alias as string, { apiKey }, { by })),
  },
  {
    name: "delete",
    summary: "remove a connection",
    args: ["alias"],
    options: { ...IF_MATCH_OPTION, ...WRITE_OUTPUT_OPTIONS },
    saysInWords: true,
    run: ({ service, args: [alias], options, by }) =>
      pipe(
        TE.fromEither(expectedVersions(options)),
        TE.flatMap((expected) => service.deleteConnection(alias as string, { ...expected, by })),
        TE.map(() => writeOutput(alias as string, "deleted")),
      ),
  },
  {
    name: "customers",
    summary: "a partner connection's customers",
    asksOrchestrator: true,
    args: ["alias"],
    options: OUTPUT_OPTIONS,
    progress: "fetching the customers",
    notes: `The table shows ${CUSTOMER_COLUMNS.join(", ")}; -o json or yaml gives all ${CUSTOMER_FIELDS.length} fields.`,
    run: ({ service, args: [alias] }) =>
      TE.map(({ items: customers }: CustomerList): CommandOutput => ({
        data: customers,
        forPeople: (width) =>
          tableOrNone(
            "No customers.",
            CUSTOMER_COLUMNS.map(label),
            customers.map((customer) => CUSTOMER_COLUMNS.map((column) => cell(customer[column]))),
            width,
          ),
      }))(service.listPartnerCustomers(alias as string)),
  },
  {
    name: "rotate-master-key",
    summary: "re-seal every stored apiKey with SDWAN_MASTER_KEY",
    args: [],
    options: {},
    localOnly: true,
    notes:
      "Old keys are listed in SDWAN_MASTER_KEY_PREVIOUS; it can run while the service does. A local-store operation: in a service's context it is refused (exit 2); run it where the store is (kubectl exec into the service's pod).",
    run: ({ service, by }) =>
      TE.map(({ rotated, total }: { rotated: number; total: number }) =>
        message(`Re-sealed ${rotated} of ${total} apiKeys with the current master key\n`),
      )(service.rotateMasterKey({ by })),
  },
  {
    name: "export",
    summary:
      "the connections and grants as a configuration file for `apply`: keys as env: references, never their values",
    args: [],
    options: {
      format: {
        type: "string",
        short: "o",
        value: "yaml|json",
        description: "the file's format (default yaml); -o is the same, as for the other commands",
      },
    },
    notes: `Each key becomes env:${KEY_VARIABLE_PREFIX}<ALIAS> (the alias in upper case, every character other than a letter or digit as _ and its hex code: a.b gives ${KEY_VARIABLE_PREFIX}A_2EB); change it to file:PATH to read the key from a file.`,
    run: ({ service, options }) =>
      options["format"] !== undefined && options["format"] !== "yaml" && options["format"] !== "json"
        ? TE.left(invalidInput([{ field: "--format", message: "must be yaml or json" }]))
        : pipe(
            TE.Do,
            TE.apS("connections", service.listConnections()),
            // Grants are for admins: a viewer through a service gets a file without them, which `apply` leaves alone.
            TE.apS(
              "grants",
              pipe(
                service.grants.list(),
                TE.orElse((error): TE.TaskEither<DomainError, readonly Grant[] | undefined> =>
                  error._tag === "InvalidInput" ? TE.right(undefined) : TE.left(error),
                ),
              ),
            ),
            TE.flatMap(({ connections, grants }) =>
              TE.fromTask(() =>
                exportConfiguration(connections, grants, options["format"] === "json" ? "json" : "yaml"),
              ),
            ),
            TE.map(message),
          ),
  },
  {
    name: "apply",
    summary: "make the connections what a configuration file says: print the plan, then apply it",
    asksOrchestrator: true,
    stopsCleanly: true,
    args: [],
    options: {
      file: {
        type: "string",
        short: "f",
        value: "file",
        description: "the configuration file (YAML or JSON, at most 16 MiB), as `export` writes it",
      },
      "dry-run": { type: "boolean", description: "print the plan only" },
      prune: {
        type: "boolean",
        description: "also delete the connections (and, when it has a grants: list, the grants) the file does not name",
      },
      "require-keys": {
        type: "boolean",
        description:
          "refuse an entry whose key variable is not set (by default it is unchanged if its URL is, its key not checked)",
      },
      force: { type: "boolean", description: "store without asking the orchestrator" },
      ...OUTPUT_OPTIONS,
    },
    progress: "applying",
    createsStore: (options) => options["dry-run"] !== true,
    notes: [
      `Keys come from references: env:${KEY_VARIABLE_PREFIX}NAME (only variables with that prefix) or file:NAME (a regular file of at most 16 KiB in the directory SDWAN_APIKEY_DIR names, which file: references need); two connections may not share one, and none may be a master key. The plan says where each key comes from. An entry whose variable is not set is unchanged if its connection is stored at that URL (key not checked), else refused; --require-keys refuses it anyway.`,
      "Each entry is validated with its orchestrator unless --force. A step that fails does not stop the others; the output says which were applied and which were not, and the exit code is that of the first failure.",
      "A grants: list (subject, pattern, verb) is planned too: grants it says are created, and with --prune stored ones it does not say are deleted; a file without one leaves the grants alone.",
      "Applying the same file again changes nothing. Ctrl-C or SIGTERM stops it at once, saying what was applied. A dry run creates nothing: where no store is yet, its plan creates every entry.",
    ].join(" "),
    run: (input) => applyConfiguration(input, input.service.planConfiguration, input.service),
    withoutStore: (options) =>
      options["dry-run"] === true ? (input) => applyConfiguration(input, planForNoStore) : undefined,
  },
  {
    name: "health",
    summary: "each connection's last known health: state, since when, the last check",
    args: [],
    options: OUTPUT_OPTIONS,
    notes:
      "Every validation records its outcome; the REST service also checks in the background every SDWAN_HEALTH_INTERVAL_S seconds (300 by default, 0 off). The service, its instances and the CLI share the states, and they survive restarts (PostgreSQL: the database; the embedded store: health.json in the data directory).",
    run: ({ service }) =>
      TE.map((connections: readonly ConnectionHealth[]): CommandOutput => ({
        data: connections,
        forPeople: (width) =>
          tableOrNone(
            "No connections.",
            ["Alias", "State", "Since", "Last check", "Latency (ms)", "Reason"],
            connections.map(({ alias, state, since, checks: [last] }) => [
              alias,
              state,
              cell(since?.toISOString() ?? null),
              cell(last?.at.toISOString() ?? null),
              cell(last?.latencyMs ?? null),
              cell(last?.reason ?? null),
            ]),
            width,
          ),
      }))(service.connectionsHealth()),
  },
  {
    name: "audit",
    summary: "the audit trail, newest first: who changed what, failed attempts included",
    args: [],
    options: {
      alias: { type: "string", value: "alias", description: "only this connection's entries" },
      since: { type: "string", value: "time", description: "only entries at or after this RFC 3339 time or date" },
      limit: { type: "string", value: "count", description: "at most this many entries (default 100)" },
      before: { type: "string", value: "id", description: "the page after the one whose `next` this is" },
      ...OUTPUT_OPTIONS,
    },
    run: ({ service, options }) =>
      TE.map((page: AuditPage): CommandOutput => ({
        data: page,
        forPeople: (width) =>
          tableOrNone(
            "No audit entries.",
            AUDIT_COLUMNS.map(label),
            page.entries.map((entry) => AUDIT_COLUMNS.map((column) => auditCell(entry, column))),
            width,
          ) + (page.next === null ? "" : `more: --before ${page.next}\n`),
      }))(service.listAudit(queryOf(options, { alias: "alias", since: "since", limit: "limit", before: "before" }))),
  },
  {
    name: "events",
    summary: "follows the event stream: changes, health changes and key-expiry warnings as they happen",
    args: [],
    options: {
      follow: {
        type: "boolean",
        short: "f",
        description: "follow the stream until Ctrl-C (required: `audit` lists what happened before)",
      },
      types: {
        type: "string",
        value: "types",
        description: "only these event types, comma-separated, `*` a wildcard (e.g. connection.health.*)",
      },
      alias: {
        type: "string",
        value: "glob",
        description: "only the events of connections whose alias matches (any case, `*` a wildcard)",
      },
      "since-id": {
        type: "string",
        value: "id",
        description: "first the events after this one (an event's id), then the new ones",
      },
      ...OUTPUT_OPTIONS,
    },
    notes:
      "Each event is a CloudEvents 1.0 object (docs/interface.md §9): a line of its own, as JSON for scripts (-o json or yaml: one JSON object a line; yaml separates them with ---) or in words on a terminal. Where the stream starts again after events were dropped by retention, a line says so. Works on the local store (seeing the service's writes too) and through a service (GET /events): a stream that ends is opened again after a restart or a cut, but a refusal (credentials revoked or no longer allowed) ends the command with its error and exit code.",
    stopsCleanly: true,
    run: ({ service, options, signal, emit }) => {
      if (options["follow"] !== true)
        return TE.left(
          invalidInput([
            { field: "--follow", message: "is required: events are a stream to follow; `audit` lists past entries" },
          ]),
        );
      const query = queryOf(options, { types: "types", alias: "alias", "since-id": "lastEventId" });
      const deliver = (item: FeedItem): void | Promise<void> =>
        item._tag === "reset"
          ? emit({ reset: true }, "(events before this point were dropped by retention: read the state again)")
          : emit(item.event, eventLine(item.event));
      // Until Ctrl-C or SIGTERM (exit 0), or until the follow ends by itself: then with its error, as a first refusal.
      let finish: (answer: E.Either<DomainError, CommandOutput>) => void = () => undefined;
      const finished = new Promise<E.Either<DomainError, CommandOutput>>((resolve) => (finish = resolve));
      const stopped = () => finish(E.right(message("")));
      if (signal.aborted) stopped();
      else signal.addEventListener("abort", stopped, { once: true });
      return pipe(
        service.followEvents(query, deliver, (error) => finish(E.left(error)), { signal }),
        TE.flatMap((stopFollowing) => async () => {
          const answer = await finished;
          stopFollowing();
          return answer;
        }),
      );
    },
  },
  {
    name: "__complete",
    summary: "the words the completion script offers: `aliases`, the stored connections' aliases, one a line",
    args: ["what"],
    options: {},
    hidden: true,
    run: ({ service, args: [what] }) =>
      what === "aliases"
        ? TE.map((connections: readonly ConnectionSummary[]) =>
            message(connections.map(({ alias }) => `${alias}\n`).join("")),
          )(service.listConnections())
        : TE.left(invalidInput([{ field: "<what>", message: "must be aliases" }])),
  },
];
