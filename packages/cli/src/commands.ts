import {
  ANSWER_TEXT,
  CUSTOMER_FIELDS,
  detailsAnswer,
  invalidInput,
  validationAnswer,
  versionFromText,
  type Core,
  type ConnectionSummary,
  type Customer,
  type CustomerList,
  type DomainError,
  type ExpectedVersions,
  type ValidationResult,
  type ConnectionDetails,
  type KeyExpiry,
  aliasKey,
  daysLeft,
} from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import {
  fieldsOf,
  label,
  message,
  OUTPUT_OPTIONS,
  tableOrNone,
  type Command,
  type CommandInput,
  type CommandOutput,
  type OptionSpec,
} from "./command.js";
import { CONFIGURATION_COMMANDS } from "./configuration-commands.js";
import { KEY_RENEWAL_OPTION, keyRenewalOf } from "./key-renewal.js";
import { EXIT } from "./exit-codes.js";
import { OBSERVE_COMMANDS } from "./observe-commands.js";
import { cell, record } from "./output.js";

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

const KEY_INPUT_NOTE =
  "The apiKey is read from standard input: typed at a prompt, not shown, ended by Enter; or piped in.";
// add and update, which take --api-key-ref too.
const KEY_NOTE = `${KEY_INPUT_NOTE} With --api-key-ref the service reads it where it is kept (admin only), file:NAME in its SDWAN_APIKEY_DIR or env:SDWAN_APIKEY_…, whenever it is used; nothing is read here.`;
// Keys kept elsewhere (SPEC §12): the reference goes to the service as written, which reads the key when used.
const KEY_REF_OPTION = {
  "api-key-ref": {
    type: "string",
    value: "file:NAME|env:NAME",
    description: "where the service reads the key instead of storing it (admin only)",
  },
} as const;
const keyOrReference = (apiKey: string | undefined, options: CommandInput["options"]) => ({
  ...(apiKey === undefined ? {} : { apiKey }),
  ...(typeof options["api-key-ref"] === "string" ? { apiKeyRef: options["api-key-ref"] } : {}),
});

/**
 * What `update` changes. Nothing to change, or a key both given and kept elsewhere (--key with --api-key-ref), is a
 * usage error: refused in the CLI's words before the use case, so not recorded as an attempted write.
 */
const updateOf = (apiKey: string | undefined, options: CommandInput["options"]) => {
  const key = keyOrReference(apiKey, options);
  if ("apiKey" in key && "apiKeyRef" in key)
    return E.left(
      invalidInput([{ field: "--api-key-ref", message: "cannot go with --key: a key is stored or kept elsewhere" }]),
    );
  return pipe(
    keyRenewalOf(options),
    E.map((renewal) => ({
      ...(typeof options["url"] === "string" ? { orchestratorUrl: options["url"] } : {}),
      ...key,
      ...renewal,
    })),
    E.filterOrElse(
      (changes) => Object.keys(changes).length > 0,
      () =>
        invalidInput([
          { field: "update", message: "needs at least one of --url, --key, --key-renewal, --api-key-ref" },
        ]),
    ),
  );
};

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

const CUSTOMER_COLUMNS: readonly (keyof Customer)[] = ["id", "name", "enterpriseId", "city", "country", "bastionState"];

// Whole days before a key's known expiry (SPEC §10), as the console shows them; null when the expiry is not known.
const keyDaysLeft = (expiry: KeyExpiry | undefined): number | null =>
  expiry === undefined ? null : daysLeft(expiry.expiresAt, new Date());

const detailsOutput = (details: ConnectionDetails): CommandOutput => {
  const data = detailsAnswer(details);
  // People also see the days left, beside the date; scripts get the interface's answer.
  const { apiKeyExpirySource, keyRenewal, ...rest } = data;
  const shown = { ...rest, apiKeyDaysLeft: keyDaysLeft(details.apiKeyExpiry), apiKeyExpirySource, keyRenewal };
  return { data, forPeople: (width) => record(fieldsOf(shown), width) };
};

const WIDE_COLUMNS = [
  "alias",
  "orchestratorUrl",
  "health",
  "apiKeyExpiresAt",
  "apiKeyDaysLeft",
  "apiKeyExpirySource",
  "keyRenewal",
] as const;

/** `list -o wide`: each connection with its health and its key's expiry (date, days left, where it is known from). */
const wideList = (service: Core): TE.TaskEither<DomainError, CommandOutput> =>
  pipe(
    TE.Do,
    TE.apS("health", service.health.list()),
    TE.apS(
      "connections",
      pipe(
        service.connections.list(),
        // One at a time: through a service each is a request.
        TE.flatMap(TE.traverseSeqArray(({ alias }) => service.connections.describe(alias))),
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

/** Every command, in the order `--help` lists them. Their names, arguments, options and exit codes are the CLI's interface. */
export const COMMANDS: readonly Command[] = [
  {
    name: "list",
    summary: "the connections (alias and orchestrator URL; -o wide adds health and key expiry)",
    args: [],
    readsOnly: true,
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
          })(service.connections.list()),
  },
  {
    name: "get",
    summary:
      "one connection as stored: URL, version, when its key was set, the key's fingerprint (the orchestrator is not asked)",
    args: ["alias"],
    readsOnly: true,
    options: OUTPUT_OPTIONS,
    run: ({ service, args: [alias] }) => TE.map(detailsOutput)(service.connections.describe(alias as string)),
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
      ...KEY_RENEWAL_OPTION,
      ...WRITE_OUTPUT_OPTIONS,
    },
    saysInWords: true,
    progress: "asking the orchestrator",
    readsKey: (options) => typeof options["api-key-ref"] !== "string",
    createsStore: (options) => options["dry-run"] !== true,
    notes: KEY_NOTE,
    run: ({ service, args: [alias, orchestratorUrl], options, apiKey, by }) =>
      pipe(
        TE.fromEither(keyRenewalOf(options)),
        TE.flatMap((renewal) =>
          service.connections.add(
            { alias, orchestratorUrl, ...keyOrReference(apiKey, options), ...renewal },
            { dryRun: options["dry-run"] === true, force: options["force"] === true, by },
          ),
        ),
        TE.map((outcome: keyof typeof WRITE_TEXT) => writeOutput(alias as string, outcome)),
      ),
  },
  {
    name: "update",
    summary: "change a connection's URL, apiKey and/or key renewal, validated first",
    asksOrchestrator: true,
    args: ["alias"],
    options: {
      url: { type: "string", value: "orchestratorUrl", description: "the new orchestrator URL" },
      key: { type: "boolean", description: "read a new apiKey from standard input" },
      ...KEY_RENEWAL_OPTION,
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
          pipe(
            TE.fromEither(updateOf(apiKey, options)),
            TE.flatMap((changes) =>
              service.connections.update(alias as string, changes, {
                dryRun: options["dry-run"] === true,
                force: options["force"] === true,
                ...expected,
                by,
              }),
            ),
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
      })(service.connections.validate(alias as string)),
  },
  {
    name: "key-check",
    summary: "tell whether a connection's stored apiKey is the one given, without showing it",
    args: ["alias"],
    options: OUTPUT_OPTIONS,
    readsKey: () => true,
    notes: `${KEY_INPUT_NOTE} Compared in constant time; the orchestrator is not asked. Exits 0 when they match, 9 when they differ.`,
    run: ({ service, args: [alias], apiKey, by }) =>
      TE.map(({ matches }: { readonly matches: boolean }): CommandOutput => ({
        data: { matches },
        forPeople: () => (matches ? "The key matches the stored one.\n" : "The key differs from the stored one.\n"),
        exitCode: matches ? EXIT.ok : EXIT.keyMismatch,
      }))(service.connections.checkKey(alias as string, { apiKey }, { by })),
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
        TE.flatMap((expected) => service.connections.delete(alias as string, { ...expected, by })),
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
      }))(service.connections.customers(alias as string)),
  },
  ...CONFIGURATION_COMMANDS,
  ...OBSERVE_COMMANDS,
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
          )(service.connections.list())
        : TE.left(invalidInput([{ field: "<what>", message: "must be aliases" }])),
  },
];
