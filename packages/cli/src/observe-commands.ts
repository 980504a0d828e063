import {
  invalidInput,
  type AuditEntry,
  type AuditPage,
  type CloudEvent,
  type ConnectionHealth,
  type DomainError,
  type FeedItem,
} from "@sdwan-connections/core";
import { AuditEntry as AuditEntryAnswer } from "@sdwan-connections/core/wire";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import {
  label,
  message,
  OUTPUT_OPTIONS,
  tableOrNone,
  type Command,
  type CommandInput,
  type CommandOutput,
} from "./command.js";
import { cell } from "./output.js";

// The table shows every field of an entry (the wire's, in its order) but its id, request id and detail: `--json` has them.
const { id: _id, requestId: _requestId, detail: _detail, ...shown } = AuditEntryAnswer.types[0].props;
const AUDIT_COLUMNS = Object.keys(shown) as (keyof typeof shown)[];
const auditCell = (entry: AuditEntry, column: (typeof AUDIT_COLUMNS)[number]): string => {
  const value = entry[column];
  return Array.isArray(value) ? value.join(",") : cell(value as string | boolean | Date | null);
};

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

/** What happened and what is: health, audit, events. */
export const OBSERVE_COMMANDS: readonly Command[] = [
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
      }))(service.health.list()),
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
      }))(service.audit.list(queryOf(options, { alias: "alias", since: "since", limit: "limit", before: "before" }))),
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
      "Each event is a CloudEvents 1.0 object (docs/interface.md §9): a line of its own, as JSON for scripts (-o json or yaml: one JSON object a line; yaml separates them with ---) or in words on a terminal. Where the stream starts again after events were dropped by retention, a line says so. Works on the local store (seeing the service's writes too) and through a service (GET /events): a stream that ends is opened again after a restart or a cut, but a refusal (credentials revoked or no longer allowed) ends the command with its error and exit code. Ctrl-C or SIGTERM, its usual end, exits 0.",
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
      return async () => {
        // A local store's follow is its looks for new entries, on core's beat, which never keeps a process alive: the
        // command does, until the follow ends (else the process ended at once, exit 0, having printed nothing).
        const alive = setInterval(() => undefined, 2 ** 30);
        try {
          return await pipe(
            service.events.follow(query, deliver, (error) => finish(E.left(error)), { signal }),
            TE.flatMap((stopFollowing) => async () => {
              const answer = await finished;
              stopFollowing();
              return answer;
            }),
          )();
        } finally {
          clearInterval(alive);
        }
      };
    },
  },
];
