import { timeText } from "./time.js";
import * as E from "fp-ts/lib/Either.js";
import { compileGlob, type Glob } from "./glob.js";
import * as O from "fp-ts/lib/Option.js";
import { pipe } from "fp-ts/lib/function.js";
import * as t from "io-ts";
import {
  AUDIT_ID,
  healthChangeOf,
  type AuditAction,
  type AuditEntry,
  type AuditHead,
  type HealthTransition,
} from "./audit.js";
import { oneOf, queryFieldErrors } from "./decode.js";
import { invalidInput, type DomainError } from "./errors.js";
import { HEALTH_STATES } from "./health.js";
import { KEY_EXPIRY_SOURCES, parseKeyExpiryDetail, type KeyExpiryDetail } from "./key-expiry.js";
import { parseKeyRenewalDetail, type KeyRenewalDetail } from "./key-renewal.js";

/** What every event type starts with (SSE's `event:` leaves it out). */
export const EVENT_TYPE_PREFIX = "org.sdwan-connections.";

/** Every event type, without the prefix (docs/interface.md, Events). */
export const EVENT_TYPES = [
  "connection.added",
  "connection.updated",
  "connection.deleted",
  "connection.health.changed",
  "connection.key.expiring",
  "connection.key.expired",
  "connection.key.renewed",
  "connection.key.renewalFailed",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Where every event comes from (CloudEvents `source`, a URI reference): this service, whichever instance wrote it. */
export const EVENT_SOURCE = "/sdwan-connections";

const prefixed = <K extends string>(types: readonly K[]) =>
  oneOf(types.map((type) => `${EVENT_TYPE_PREFIX}${type}` as `${typeof EVENT_TYPE_PREFIX}${K}`));

// The CloudEvents 1.0 attributes every event has (JSON structured mode); `subject` is the connection's alias.
const Envelope = {
  specversion: t.literal("1.0"),
  id: t.string,
  source: t.string,
  subject: t.string,
  time: t.string,
  datacontenttype: t.literal("application/json"),
};

/**
 * Every event's data may also tell the connection's orchestrator URL as it was when the event happened (absent when
 * not known: entries written before they kept it): receivers need not ask the store, where it may be gone.
 */
const dataWithUrl = <P extends t.Props>(props: P) =>
  t.exact(t.intersection([t.type(props), t.partial({ orchestratorUrl: t.string })]));

/** A change's data: the version it left (or removed), the names of the fields it set (never values), who, and whether validation was skipped. */
const ChangeData = dataWithUrl({
  version: t.union([t.number, t.null]),
  fields: t.array(t.string),
  actor: t.string,
  forced: t.boolean,
});
/** A health state change's data: the states, why (null when valid), and when the check ran. */
const HealthChangedData = dataWithUrl({
  from: oneOf(HEALTH_STATES),
  to: oneOf(HEALTH_STATES),
  reason: t.union([t.string, t.null]),
  checkedAt: t.string,
});
/** A key-expiry warning's data (SPEC §10): when the key expires, the whole days left then (0 or less at expiry), and where the date came from. */
const KeyExpiryData = dataWithUrl({ expiresAt: t.string, daysLeft: t.number, source: oneOf(KEY_EXPIRY_SOURCES) });

/** A key renewed by the service (SPEC §12): the version it left, who, how, and the new key's expiry (null: unknown). Never a key. */
const KeyRenewedData = dataWithUrl({
  version: t.union([t.number, t.null]),
  actor: t.string,
  method: oneOf(["refresh", "create"] as const),
  expiresAt: t.union([t.string, t.null]),
});
/** A renewal that could not be done, and why. */
const KeyRenewalFailedData = dataWithUrl({ reason: t.string });

/** One event as CloudEvents 1.0 JSON (structured mode): the only form events take, on every channel. Never a key. */
export const CloudEventCodec = t.union(
  [
    t.exact(
      t.type({
        ...Envelope,
        type: prefixed(["connection.added", "connection.updated", "connection.deleted"] as const),
        data: ChangeData,
      }),
    ),
    t.exact(t.type({ ...Envelope, type: prefixed(["connection.health.changed"] as const), data: HealthChangedData })),
    t.exact(
      t.type({
        ...Envelope,
        type: prefixed(["connection.key.expiring", "connection.key.expired"] as const),
        data: KeyExpiryData,
      }),
    ),
    t.exact(t.type({ ...Envelope, type: prefixed(["connection.key.renewed"] as const), data: KeyRenewedData })),
    t.exact(
      t.type({ ...Envelope, type: prefixed(["connection.key.renewalFailed"] as const), data: KeyRenewalFailedData }),
    ),
  ],
  "CloudEvent",
);
export type CloudEvent = t.TypeOf<typeof CloudEventCodec>;

/** The type of `event` without the prefix. */
export const eventTypeOf = (event: CloudEvent): EventType => event.type.slice(EVENT_TYPE_PREFIX.length) as EventType;

const envelopeOf = (entry: AuditEntry & { readonly alias: string }) => ({
  specversion: "1.0" as const,
  id: entry.id,
  source: EVENT_SOURCE,
  subject: entry.alias,
  time: timeText(entry.at),
  datacontenttype: "application/json" as const,
});

const CHANGE_TYPES = { add: "connection.added", update: "connection.updated", delete: "connection.deleted" } as const;
const KEY_EXPIRY_TYPES = {
  "key-expiring": "connection.key.expiring",
  "key-expired": "connection.key.expired",
} as const;
// The type of the event each action that makes one makes (when it succeeded): what a stored entry is, undecoded.
const EVENT_TYPE_OF: ReadonlyMap<string, EventType> = new Map<AuditAction, EventType>([
  ...Object.entries(CHANGE_TYPES),
  ["health-change", "connection.health.changed"],
  ...Object.entries(KEY_EXPIRY_TYPES),
  ["key-renew", "connection.key.renewed"],
  ["key-renewal-failed", "connection.key.renewalFailed"],
] as [AuditAction, EventType][]);

/**
 * Whether an entry of `action` with `outcome` may be an event: what succeeded, and a renewal that failed (an attempt
 * that failed, and an event as such; entries recorded before it was so still say `succeeded`).
 */
const eventful = (action: string, outcome: string): boolean =>
  outcome === "succeeded" || action === "key-renewal-failed";

/**
 * The event an audit entry is, if any: a change that happened (add, update, delete), a health state change, or a
 * key-expiry warning.
 * Attempts (failed, refused, unchanged), dry runs, key checks, rotations, grant and token changes are not events. Every action is
 * named here, so a new one does not compile until it is mapped.
 */
export const eventOf = (entry: AuditEntry): O.Option<CloudEvent> => {
  const { alias } = entry;
  const url = entry.orchestratorUrl === undefined ? {} : { orchestratorUrl: entry.orchestratorUrl };
  if (alias === null || !eventful(entry.action, entry.outcome)) return O.none;
  const action = entry.action;
  switch (action) {
    case "add":
    case "update":
    case "delete":
      return O.some({
        ...envelopeOf({ ...entry, alias }),
        type: `${EVENT_TYPE_PREFIX}${CHANGE_TYPES[action]}`,
        data: {
          version: entry.version ?? null,
          fields: [...entry.fields],
          actor: entry.actor,
          forced: entry.forced,
          ...url,
        },
      });
    case "health-change":
      return O.map(({ from, to, reason }: HealthTransition): CloudEvent => ({
        ...envelopeOf({ ...entry, alias }),
        type: `${EVENT_TYPE_PREFIX}connection.health.changed`,
        data: { from, to, reason, checkedAt: timeText(entry.at), ...url },
      }))(healthChangeOf(entry.detail));
    case "key-expiring":
    case "key-expired":
      return O.map(({ expiresAt, daysLeft, source }: KeyExpiryDetail): CloudEvent => ({
        ...envelopeOf({ ...entry, alias }),
        type: `${EVENT_TYPE_PREFIX}${KEY_EXPIRY_TYPES[action]}`,
        data: { expiresAt: timeText(expiresAt), daysLeft, source, ...url },
      }))(O.fromNullable(parseKeyExpiryDetail(entry.detail)));
    case "key-renew":
      return O.map(({ method, expiresAt }: KeyRenewalDetail): CloudEvent => ({
        ...envelopeOf({ ...entry, alias }),
        type: `${EVENT_TYPE_PREFIX}connection.key.renewed`,
        data: {
          version: entry.version ?? null,
          actor: entry.actor,
          method,
          expiresAt: expiresAt === undefined ? null : timeText(expiresAt),
          ...url,
        },
      }))(O.fromNullable(parseKeyRenewalDetail(entry.detail)));
    case "key-renewal-failed":
      return O.some({
        ...envelopeOf({ ...entry, alias }),
        type: `${EVENT_TYPE_PREFIX}connection.key.renewalFailed`,
        data: { reason: entry.detail ?? "unknown", ...url },
      });
    case "dry-run":
    case "rotate-master-key":
    case "key-check":
    case "forbidden":
    case "grant-add":
    case "grant-remove":
    case "token-create":
    case "token-renew":
    case "token-revoke":
    case "token-expiring":
    case "token-expired":
    case "webhook-redeliver":
    case "webhook-create":
    case "webhook-delete":
    case "webhook-disable":
      // Changes to no connection (grants, tokens, webhooks) and a token's expiry are the admins' (the audit trail), not
      // a connection's events: /events is read by every user.
      return O.none;
    default: {
      const unmapped: never = action;
      return unmapped;
    }
  }
};

/** Which events a reader wants: types (patterns, `*` any run of characters), aliases (a glob, any case), and where to resume. */
export interface EventsQuery {
  readonly types: readonly Glob[] | undefined;
  readonly alias: Glob | undefined;
  /** The id of the last event the reader has: what came after it is replayed first. */
  readonly lastEventId: string | undefined;
}

/** Whether `pattern` (without the prefix, `*` any run of characters) names at least one known type. */
export const isEventTypePattern = (pattern: string): boolean =>
  /^[A-Za-z*]+(\.[A-Za-z*]+)*$/.test(pattern) && EVENT_TYPES.some((type) => compileGlob(pattern).test(type));

// A type pattern (with or without the prefix) that names at least one known type: a typo is refused, not silent.
const TypesCodec = new t.Type<readonly Glob[], string, unknown>(
  "EventTypes",
  (_input): _input is readonly Glob[] => false,
  (input, context) => {
    const patterns =
      typeof input === "string" ? input.split(",").map((pattern) => pattern.trim().replace(EVENT_TYPE_PREFIX, "")) : [];
    const valid = patterns.length > 0 && patterns.every(isEventTypePattern);
    return valid
      ? t.success(patterns.map((pattern) => compileGlob(pattern)))
      : t.failure(
          input,
          context,
          `must be a comma-separated list of event types, \`*\` a wildcard (known: ${EVENT_TYPES.join(", ")})`,
        );
  },
  String,
);
// Only ever decoded (its guard answers no), as TypesCodec.
const AliasGlobCodec = new t.Type<Glob, string, unknown>(
  "AliasGlob",
  (_input): _input is Glob => false,
  (input, context) =>
    typeof input === "string" && /^[A-Za-z0-9._*-]{1,64}$/.test(input)
      ? t.success(compileGlob(input, { ignoreCase: true }))
      : t.failure(input, context, "must be an alias or a glob of one (`*` any run of characters)"),
  String,
);
const EventIdCodec = t.refinement(t.string, (input) => AUDIT_ID.test(input), "EventId");

const EventsQueryParts = t.partial({ types: TypesCodec, alias: AliasGlobCodec, lastEventId: EventIdCodec });
const EVENTS_QUERY_NAMES = ["types", "alias", "lastEventId"];

/** The events query from text (an HTTP query string): every part optional; an unknown name is refused without being echoed. */
export const decodeEventsQuery = (input: Readonly<Record<string, unknown>>): E.Either<DomainError, EventsQuery> => {
  if (Object.keys(input).some((name) => !EVENTS_QUERY_NAMES.includes(name))) {
    return E.left(
      invalidInput([
        { field: "query", message: `holds an option events do not know (known: ${EVENTS_QUERY_NAMES.join(", ")})` },
      ]),
    );
  }
  return pipe(
    EventsQueryParts.decode(input),
    E.bimap(
      (errors) =>
        invalidInput(
          queryFieldErrors(errors).map((error) => ({
            field: error.field,
            message: error.field === "query.lastEventId" ? "must be the id of an event" : error.message,
          })),
        ),
      (parts): EventsQuery => ({ types: parts.types, alias: parts.alias, lastEventId: parts.lastEventId }),
    ),
  );
};

/**
 * Whether `event` is one `query` selects for a reader that may read the connections `readable` answers true for
 * (every one when undefined). What it may read is decided first: a hidden connection's event never meets the
 * reader's own globs, so their cost tells nothing of it (issue 36).
 */
export const selectsEvent =
  (query: EventsQuery, readable?: (alias: string) => boolean) =>
  (event: CloudEvent): boolean =>
    (readable === undefined || readable(event.subject)) &&
    (query.types === undefined || query.types.some((type) => type.test(eventTypeOf(event)))) &&
    (query.alias === undefined || query.alias.test(event.subject));

/**
 * Whether a stored entry (its head, not yet decoded) is an event `query` selects for a reader that may read the
 * aliases `readable` admits: asked first, so nothing else (the reader's glob included) is run on an alias it may not
 * read. An entry it selects may still not be an event (a health change whose detail does not tell one).
 */
export const selectsStored =
  (query: EventsQuery, readable: (alias: string) => boolean = () => true) =>
  ({ alias, action, outcome }: AuditHead): boolean => {
    if (alias === null || !eventful(action, outcome) || !readable(alias)) return false;
    const type = EVENT_TYPE_OF.get(action);
    return (
      type !== undefined &&
      (query.types === undefined || query.types.some((pattern) => pattern.test(type))) &&
      (query.alias === undefined || query.alias.test(alias))
    );
  };
