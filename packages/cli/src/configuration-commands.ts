import {
  invalidInput,
  KEY_VARIABLE_PREFIX,
  planForNoStore,
  stepName,
  type Connections,
  type Core,
  type DomainError,
  type Grant,
  type GrantStep,
  type PlanStep,
  type StepResult,
} from "@sdwan-connections/core";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import {
  describeForCli,
  message,
  OUTPUT_OPTIONS,
  stopExitCode,
  type Command,
  type CommandInput,
  type CommandOutput,
} from "./command.js";
import { exportConfiguration, readConfiguration } from "./configuration-file.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { withKeyRenewal } from "./key-renewal.js";

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

/**
 * apply: the file read, planned by `plan`, then printed (a dry run) or carried out through `service`; a dry
 * run needs no service (where no store is yet, it has none).
 */
const applyConfiguration = (
  { options, keySources, by, signal }: Omit<CommandInput, "service" | "apiKey">,
  plan: Connections["plan"],
  service?: Core,
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
                const results = await service.connections.apply(planned, {
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

/** The store's master key and the configuration as code: rotate-master-key, export, apply. */
export const CONFIGURATION_COMMANDS: readonly Command[] = [
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
      )(service.connections.rotateMasterKey({ by })),
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
            TE.apS("connections", pipe(service.connections.list(), TE.flatMap(withKeyRenewal(service)))),
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
    run: (input) => applyConfiguration(input, input.service.connections.plan, input.service),
    withoutStore: (options) =>
      options["dry-run"] === true ? (input) => applyConfiguration(input, planForNoStore) : undefined,
  },
];
