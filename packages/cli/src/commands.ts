import {
  CUSTOMER_FIELDS,
  invalidInput,
  validationAnswer,
  versionFromText,
  type ConnectionService,
  type ConnectionSummary,
  type Customer,
  type DomainError,
  type ExpectedVersions,
  type ValidationResult,
  describeError,
  type Actor,
  type PlanStep,
  type StepResult,
  type AuditEntry,
  type AuditPage,
  type ConnectionHealth,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import { exportConfiguration, readConfiguration } from "./configuration-file.js";
import { exitCodeOf } from "./exit-codes.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { cell, json, table } from "./output.js";

export interface OptionSpec {
  readonly type: "boolean" | "string";
  readonly description: string;
  /** For string options: what the value is, in the usage line. */
  readonly value?: string;
  /** A one-letter alias, e.g. `f` for `-f`. */
  readonly short?: string;
}

export interface CommandInput {
  readonly service: ConnectionService;
  /** The positional arguments, as many as the command names. */
  readonly args: readonly string[];
  readonly options: Readonly<Record<string, string | boolean | undefined>>;
  /** The apiKey, from standard input (never from the command line, where other users could read it). */
  readonly readApiKey: () => Promise<string>;
  /** JSON for scripts: with --json, or whenever standard output is not a terminal. */
  readonly asJson: boolean;
  /** Who runs the command, for the audit trail. */
  readonly by: Actor;
  /** The environment, for `env:NAME` key references. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** What a command printed, and the exit code when it is not 0 (some steps of `apply` failed). */
export type CommandOutput = string | { readonly output: string; readonly exitCode: number };

export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly args: readonly string[];
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Shown while the orchestrator is asked (a progress indicator on a terminal); undefined when it is not. */
  readonly progress?: string;
  /** Notes below the usage in `--help`. */
  readonly notes?: string;
  run(input: CommandInput): TE.TaskEither<DomainError, CommandOutput>;
}

const JSON_OPTION: Record<string, OptionSpec> = { json: { type: "boolean", description: "print JSON (the default when standard output is not a terminal)" } };
const KEY_NOTE = "The apiKey is read from standard input (type it, then Enter and Ctrl-D; or pipe it in).";

const IF_MATCH_OPTION: Record<string, OptionSpec> = {
  "if-match": { type: "string", value: "version", description: "only if the connection is still at this version (validate --verbose shows it)" },
};

// --if-match as the use case's option; anything but a positive integer is a usage error.
const expectedVersions = (options: CommandInput["options"]): E.Either<DomainError, { readonly expectedVersions?: ExpectedVersions }> => {
  const value = options["if-match"];
  if (value === undefined) return E.right({});
  const version = typeof value === "string" ? versionFromText(value) : undefined;
  return version !== undefined
    ? E.right({ expectedVersions: [version] })
    : E.left(invalidInput([{ field: "--if-match", message: "must be a connection's version, a positive integer" }]));
};

const AUDIT_COLUMNS = ["at", "actor", "action", "alias", "fields", "forced", "validation", "outcome", "failure"] as const;
const auditCell = (entry: AuditEntry, column: (typeof AUDIT_COLUMNS)[number]): string => {
  const value = entry[column];
  return value instanceof Date ? value.toISOString() : Array.isArray(value) ? value.join(",") : cell(value as string | boolean | null);
};

const SYMBOLS: Record<PlanStep["action"], string> = { create: "+", update: "~", delete: "-", unchanged: "=" };
const describePlan = (steps: readonly PlanStep[]): string => {
  const count = (action: PlanStep["action"]) => steps.filter((step) => step.action === action).length;
  return [
    `Plan: ${count("create")} to create, ${count("update")} to update, ${count("delete")} to delete, ${count("unchanged")} unchanged`,
    ...steps.map((step) => `  ${SYMBOLS[step.action]} ${step.action.padEnd(9)} ${step.alias}${step.action === "update" ? ` (${step.fields.join(", ")})` : ""}`),
    "",
  ].join("\n");
};
const resultView = (result: StepResult) =>
  result.outcome === "failed" ? { outcome: result.outcome, reason: describeError(result.error) } : { outcome: result.outcome };
const describeResults = (results: readonly StepResult[]): string => {
  const lines = results
    .filter((result) => result.outcome !== "unchanged")
    .map((result) => (result.outcome === "failed" ? `  not applied: ${result.step.action} ${result.step.alias}: ${describeError(result.error)}` : `  applied: ${result.step.action} ${result.step.alias}`));
  const failed = results.filter((result) => result.outcome === "failed").length;
  return [`Result: ${results.filter((result) => result.outcome === "applied").length} applied, ${failed} not applied`, ...lines, ""].join("\n");
};

const CUSTOMER_COLUMNS: readonly (keyof Customer)[] = ["id", "name", "enterpriseId", "city", "country", "bastionState"];

/** Every command, in the order `--help` lists them. Their names, arguments, options and exit codes are the CLI's interface. */
export const COMMANDS: readonly Command[] = [
  {
    name: "list",
    summary: "the connections (alias and orchestrator URL)",
    args: [],
    options: JSON_OPTION,
    run: ({ service, asJson }) =>
      TE.map((connections: readonly ConnectionSummary[]) =>
        asJson
          ? json(connections.map(({ alias, orchestratorUrl }) => ({ alias, orchestratorUrl })))
          : table(["ALIAS", "ORCHESTRATOR URL"], connections.map(({ alias, orchestratorUrl }) => [alias, orchestratorUrl])),
      )(service.listConnections()),
  },
  {
    name: "add",
    summary: "add a connection, validated with its orchestrator first",
    args: ["alias", "orchestratorUrl"],
    options: {
      "dry-run": { type: "boolean", description: "validate only; store nothing" },
      force: { type: "boolean", description: "store without asking the orchestrator" },
    },
    progress: "asking the orchestrator",
    notes: KEY_NOTE,
    run: ({ service, args: [alias, orchestratorUrl], options, readApiKey, by }) =>
      TE.map((outcome) => (outcome === "dry-run" ? "Dry run successful\n" : "Connection successfully added\n"))(
        TE.chain((apiKey: string) => service.addConnection({ alias, orchestratorUrl, apiKey }, { dryRun: options["dry-run"] === true, force: options["force"] === true, by }))(
          TE.fromTask(readApiKey),
        ),
      ),
  },
  {
    name: "update",
    summary: "change a connection's URL and/or apiKey, validated first",
    args: ["alias"],
    options: {
      url: { type: "string", value: "orchestratorUrl", description: "the new orchestrator URL" },
      key: { type: "boolean", description: "read a new apiKey from standard input" },
      "dry-run": { type: "boolean", description: "validate the changed connection only; store nothing" },
      force: { type: "boolean", description: "store without asking the orchestrator" },
      ...IF_MATCH_OPTION,
    },
    progress: "asking the orchestrator",
    notes: KEY_NOTE,
    run: ({ service, args: [alias], options, readApiKey, by }) =>
      TE.map((outcome) => (outcome === "dry-run" ? "Dry run successful\n" : "Connection successfully updated\n"))(
        TE.chain((expected: { readonly expectedVersions?: ExpectedVersions }) =>
          TE.chain((apiKey: string | undefined) =>
            service.updateConnection(
              alias as string,
              {
                ...(typeof options["url"] === "string" ? { orchestratorUrl: options["url"] } : {}),
                ...(apiKey === undefined ? {} : { apiKey }),
              },
              { dryRun: options["dry-run"] === true, force: options["force"] === true, ...expected, by },
            ),
          )(TE.fromTask(async () => (options["key"] === true ? readApiKey() : undefined))),
        )(TE.fromEither(expectedVersions(options))),
      ),
  },
  {
    name: "validate",
    summary: "ask the orchestrator whether a connection's apiKey is accepted",
    args: ["alias"],
    options: { verbose: { type: "boolean", description: "add the key's type or why it is not valid, the version and when the key was set" }, ...JSON_OPTION },
    progress: "asking the orchestrator",
    run: ({ service, args: [alias], options, asJson }) =>
      TE.map((result: ValidationResult) => {
        const shown = validationAnswer(result, options["verbose"] === true);
        return asJson ? json(shown) : table(Object.keys(shown).map((key) => key.toUpperCase()), [Object.values(shown).map(String)]);
      })(service.validateConnection(alias as string)),
  },
  {
    name: "key-check",
    summary: "tell whether a connection's stored apiKey is the one given, without showing it",
    args: ["alias"],
    options: JSON_OPTION,
    notes: `${KEY_NOTE} Compared in constant time; the orchestrator is not asked.`,
    run: ({ service, args: [alias], readApiKey, asJson }) =>
      TE.map(({ matches }: { readonly matches: boolean }) => (asJson ? json({ matches }) : table(["MATCHES"], [[String(matches)]])))(
        TE.chain((apiKey: string) => service.checkApiKey(alias as string, { apiKey }))(TE.fromTask(readApiKey)),
      ),
  },
  {
    name: "delete",
    summary: "remove a connection",
    args: ["alias"],
    options: IF_MATCH_OPTION,
    run: ({ service, args: [alias], options, by }) =>
      TE.map(() => "Connection successfully deleted\n")(
        TE.chain((expected: { readonly expectedVersions?: ExpectedVersions }) => service.deleteConnection(alias as string, { ...expected, by }))(
          TE.fromEither(expectedVersions(options)),
        ),
      ),
  },
  {
    name: "customers",
    summary: "a partner connection's customers",
    args: ["alias"],
    options: JSON_OPTION,
    progress: "fetching the customers",
    notes: `The table shows ${CUSTOMER_COLUMNS.join(", ")}; --json gives all ${CUSTOMER_FIELDS.length} fields.`,
    run: ({ service, args: [alias], asJson }) =>
      TE.map((customers: readonly Customer[]) =>
        asJson
          ? json(customers)
          : table(
              CUSTOMER_COLUMNS.map((column) => column.toUpperCase()),
              customers.map((customer) => CUSTOMER_COLUMNS.map((column) => cell(customer[column]))),
            ),
      )(service.listPartnerCustomers(alias as string)),
  },
  {
    name: "rotate-master-key",
    summary: "re-seal every stored apiKey with SDWAN_MASTER_KEY",
    args: [],
    options: {},
    notes: "Old keys are listed in SDWAN_MASTER_KEY_PREVIOUS; it can run while the service does.",
    run: ({ service, by }) =>
      TE.map(({ rotated, total }: { rotated: number; total: number }) => `Re-sealed ${rotated} of ${total} apiKeys with the current master key\n`)(
        service.rotateMasterKey({ by }),
      ),
  },
  {
    name: "export",
    summary: "the connections as a configuration file for `apply`: keys as env: references, never their values",
    args: [],
    options: { format: { type: "string", value: "yaml|json", description: "the file's format (default yaml)" } },
    notes: "Each key becomes env:SDWAN_APIKEY_<ALIAS>; change it to file:PATH to read the key from a file.",
    run: ({ service, options }) =>
      options["format"] !== undefined && options["format"] !== "yaml" && options["format"] !== "json"
        ? TE.left(invalidInput([{ field: "--format", message: "must be yaml or json" }]))
        : TE.map((connections: readonly ConnectionSummary[]) => exportConfiguration(connections, options["format"] === "json" ? "json" : "yaml"))(service.listConnections()),
  },
  {
    name: "apply",
    summary: "make the connections what a configuration file says: print the plan, then apply it",
    args: [],
    options: {
      file: { type: "string", short: "f", value: "file", description: "the configuration file (YAML or JSON), as `export` writes it" },
      "dry-run": { type: "boolean", description: "print the plan only" },
      prune: { type: "boolean", description: "also delete the connections the file does not name" },
      force: { type: "boolean", description: "store without asking the orchestrator" },
      ...JSON_OPTION,
    },
    progress: "applying",
    notes:
      "Keys come from env:NAME or file:PATH references. Each entry is validated with its orchestrator unless --force. A step that fails does not stop the others; the output says which were applied and which were not, and the exit code is that of the first failure. Applying the same file again changes nothing.",
    run: ({ service, options, env, asJson, by }) =>
      typeof options["file"] !== "string"
        ? TE.left(invalidInput([{ field: "--file", message: "is required: apply -f FILE" }]))
        : pipe(
            () => readConfiguration(options["file"] as string, env),
            TE.flatMap((connections) => service.planConfiguration(connections, { prune: options["prune"] === true })),
            TE.flatMap((plan) =>
              options["dry-run"] === true
                ? TE.right<DomainError, CommandOutput>(asJson ? json({ plan: plan.steps }) : describePlan(plan.steps))
                : TE.fromTask(async (): Promise<CommandOutput> => {
                    const results = await service.applyPlan(plan, { force: options["force"] === true, by });
                    const failed = results.find((result) => result.outcome === "failed");
                    const output = asJson
                      ? json({ plan: plan.steps, results: results.map((result) => ({ action: result.step.action, alias: result.step.alias, ...resultView(result) })) })
                      : `${describePlan(plan.steps)}\n${describeResults(results)}`;
                    return failed?.outcome === "failed" ? { output, exitCode: exitCodeOf(failed.error) } : output;
                  }),
            ),
          ),
  },
  {
    name: "health",
    summary: "each connection's last known health: state, since when, the last check",
    args: [],
    options: JSON_OPTION,
    notes:
      "Every validation records its outcome; the REST service also checks in the background when SDWAN_HEALTH_INTERVAL_S is set. With PostgreSQL every instance and the CLI share the states; the embedded store keeps them in the service's memory, so there ask GET /rest/plugin/sdwan/health/connections.",
    run: ({ service, asJson }) =>
      TE.map((connections: readonly ConnectionHealth[]) =>
        asJson
          ? json(connections)
          : table(
              ["ALIAS", "STATE", "SINCE", "LAST CHECK", "LATENCY MS", "REASON"],
              connections.map(({ alias, state, since, checks: [last] }) => [
                alias,
                state,
                cell(since?.toISOString() ?? null),
                cell(last?.at.toISOString() ?? null),
                cell(last?.latencyMs ?? null),
                cell(last?.reason ?? null),
              ]),
            ),
      )(service.connectionsHealth()),
  },
  {
    name: "audit",
    summary: "the audit trail, newest first: who changed what, failed attempts included",
    args: [],
    options: {
      alias: { type: "string", value: "alias", description: "only this connection's entries" },
      since: { type: "string", value: "time", description: "only entries at or after this ISO 8601 time" },
      limit: { type: "string", value: "count", description: "at most this many entries (default 100)" },
      before: { type: "string", value: "id", description: "the page after the one whose `next` this is" },
      ...JSON_OPTION,
    },
    run: ({ service, options, asJson }) =>
      TE.map((page: AuditPage) =>
        asJson
          ? json(page)
          : table(
              AUDIT_COLUMNS.map((column) => column.toUpperCase()),
              page.entries.map((entry) => AUDIT_COLUMNS.map((column) => auditCell(entry, column))),
            ) + (page.next === null ? "" : `more: --before ${page.next}\n`),
      )(service.listAudit(Object.fromEntries(["alias", "since", "limit", "before"].flatMap((name) => (options[name] === undefined ? [] : [[name, options[name]]]))))),
  },
];
