import * as t from "io-ts";
import { AliasCodec, aliasKey, IntegerCodec, type Alias } from "./codecs.js";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import type { Connection } from "./connection.js";
import { decodeQuery, oneOf } from "./decode.js";
import { HEALTH_STATES, type HealthState } from "./health.js";
import { invalidInput, type DomainError, type DomainErrorTag } from "./errors.js";
import { CONNECTION_FIELDS } from "./requests.js";
import { IsoTimeCodec, parseTimeOrDate } from "./time.js";

/**
 * What an audit entry records: a write to the connections, a master-key rotation, a health state change found
 * by the background checks, a key check that did not match, a write refused to a user who may only read, or a
 * key nearing or past its expiry (`key-expiring`, `key-expired`: attempts, never changes, whatever their number), or
 * a grant added or removed (`grant-add`, `grant-remove`: no alias, the grant in `detail`, e.g. `group:emea use emea-*`),
 * or a service token created, renewed or revoked (`token-create`, `token-renew`, `token-revoke`: no alias, the token's
 * name and role in `detail`, e.g. `token:ci viewer`, never its secret), or a service token nearing or past its
 * expiry (`token-expiring`, `token-expired`: attempts, no alias, the token's name and expiry in `detail`), a
 * webhook created, deleted, or disabled by the relay when its receiver answered 410 (`webhook-create`,
 * `webhook-delete`, `webhook-disable`: no alias, `webhookAuditDetail` in `detail`, never its secret nor credentials),
 * or a webhook delivery sent again (`webhook-redeliver`: an attempt, no alias, `webhook <id> delivery <id> event <id>`
 * in `detail`), or a key renewed by the service (`key-renew`: a change by `renewal`, `keyRenewalDetail` in `detail`)
 * or a renewal that could not be done (`key-renewal-failed`: a failed attempt, `RenewalFailed`, its reason in `detail`; SPEC §12).
 */
export const AUDIT_ACTIONS = [
  "add",
  "dry-run",
  "update",
  "delete",
  "rotate-master-key",
  "health-change",
  "key-check",
  "forbidden",
  "key-expiring",
  "key-expired",
  "grant-add",
  "grant-remove",
  "token-create",
  "token-renew",
  "token-revoke",
  "token-expiring",
  "token-expired",
  "webhook-redeliver",
  "webhook-create",
  "webhook-delete",
  "webhook-disable",
  "key-renew",
  "key-renewal-failed",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Why an attempt failed: a use case's error, a key that did not match (key check), or a role that may not write. */
export type AuditFailure = DomainErrorTag | "KeyMismatch" | "Forbidden" | "RenewalFailed";

/** What the orchestrator said of the key: it accepted it, refused it, or was not asked (forced, a delete, a failure before). */
export const VALIDATION_OUTCOMES = ["valid", "invalid", "not-asked"] as const;
export type ValidationOutcome = (typeof VALIDATION_OUTCOMES)[number];

/**
 * Whether the audited operation did what was asked: `unchanged` when it succeeded without changing anything
 * (an update to the URL and key already stored), which makes it an attempt, not a change.
 */
export const AUDIT_OUTCOMES = ["succeeded", "unchanged", "failed"] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** The fields of a request body an entry may name (never their values). */
export const AUDITED_FIELDS = Object.keys(CONNECTION_FIELDS) as readonly AuditedField[];
export type AuditedField = keyof Connection;

/** Who asked, for the audit trail: the user (or `cli:<os user>`) and the request's id when there is one. */
export interface Actor {
  readonly name: string;
  readonly requestId?: string;
}

/** One audited operation, whether it succeeded or not (`AuditEntryCodec`). */
export type AuditEntry = t.TypeOf<typeof AuditEntryCodec>;

/** The actions that change the store: their entry is written with the change, and kept as a change when it succeeded. */
export const CHANGE_ACTIONS: ReadonlySet<AuditAction> = new Set([
  "add",
  "update",
  "delete",
  "rotate-master-key",
  "grant-add",
  "grant-remove",
  "token-create",
  "token-renew",
  "token-revoke",
  "webhook-create",
  "webhook-delete",
  "webhook-disable",
  "key-renew",
]);

/**
 * Whether an entry records a change that happened (an add, update, delete or rotation that succeeded), which
 * the trail keeps by its own retention; everything else is an attempt (refused, failed, a dry run, a key check,
 * a health change), kept apart so that no number of attempts can push a change out.
 */
export const isAuditedChange = (entry: Pick<AuditEntry, "action" | "outcome">): boolean =>
  entry.outcome === "succeeded" && CHANGE_ACTIONS.has(entry.action);

/** What a store knows of the connection a write left or removed, for that write's audit entry. */
export interface WrittenConnection {
  readonly alias: Alias;
  readonly version: number;
  readonly orchestratorUrl: string;
}

/**
 * The entry a store records for a write given `entry` that succeeded: as given, with the connection's alias (as
 * first given, whatever case the request named it in), `version` and `orchestratorUrl` the write left or removed
 * (none for a rotation), except an update that changed nothing (`changed` false), recorded as `unchanged` so that
 * it never counts against the changes' retention.
 */
export const entryAsWritten = (entry: AuditEntry, changed: boolean, written?: WrittenConnection): AuditEntry => ({
  ...entry,
  ...(changed || entry.action !== "update" ? {} : { outcome: "unchanged" }),
  ...(written === undefined
    ? {}
    : { alias: written.alias, version: written.version, orchestratorUrl: written.orchestratorUrl }),
});

/** What a health change's entry says in `detail`: `valid → unreachable: <reason>`; read back by `healthChangeOf`. */
export const healthChangeDetail = ({ from, to, reason }: HealthTransition): string =>
  `${from} → ${to}${reason === null ? "" : `: ${reason}`}`;

/** A health state change as its entry's `detail` tells it. */
export interface HealthTransition {
  readonly from: HealthState;
  readonly to: HealthState;
  readonly reason: string | null;
}

const HEALTH_DETAIL = new RegExp(`^(${HEALTH_STATES.join("|")}) → (${HEALTH_STATES.join("|")})(?:: ([\\s\\S]*))?$`);

/** The transition a health change's `detail` (`healthChangeDetail`) tells; none for any other text. */
export const healthChangeOf = (detail: string | null): O.Option<HealthTransition> => {
  const found = detail === null ? null : HEALTH_DETAIL.exec(detail);
  return found === null
    ? O.none
    : O.some({ from: found[1] as HealthState, to: found[2] as HealthState, reason: found[3] ?? null });
};

// Entries of one process within one millisecond keep their order by this count; the random part keeps
// processes apart.
let sequence = 0;

/**
 * The codecs of an entry's fields that every store keeps as they are, for the stores to decode what they
 * read back (each adds `at` and `requestId` in its own form).
 */
export const AuditEntryProps = {
  /** Sortable and unique: the time, then hex (`2026-11-22T10:00:00.000Z-00002a1b2c`); the newest has the greatest. */
  id: t.string,
  actor: t.string,
  action: oneOf(AUDIT_ACTIONS, "AuditAction"),
  /** The connection's alias as given (when it was a valid alias), null for a rotation or an invalid alias. */
  alias: t.union([AliasCodec, t.null]),
  /** Names of the fields the request set, e.g. `["apiKey"]`: never a value. */
  fields: t.readonlyArray(oneOf(AUDITED_FIELDS)),
  forced: t.boolean,
  validation: oneOf(VALIDATION_OUTCOMES, "ValidationOutcome"),
  outcome: oneOf(AUDIT_OUTCOMES, "AuditOutcome"),
  /** Why it failed: the error's tag, an `AuditFailure` (no text, so nothing the request held). */
  failure: t.union([t.string, t.null]),
  /** What else there is to say: for a health change, `valid → unreachable` and the check's reason (`healthChangeDetail`); for a forbidden write, its method. */
  detail: t.union([t.string, t.null]),
};

/**
 * One audited operation, whether it succeeded or not: never a key's value, only the names of the fields given.
 * `version`: the connection's version the change left (an add or update) or removed (a delete), set by the store that
 * records the change. `orchestratorUrl`: the URL of the connection the entry is about, as it was then (a change's, set
 * by the store; a health change's or key warning's, as checked), what its event tells a receiver whatever the store
 * holds when it is delivered. Both absent when not known, and in entries written before they were kept.
 */
export const AuditEntryCodec = t.intersection(
  [
    t.type({ at: IsoTimeCodec, ...AuditEntryProps, requestId: t.union([t.string, t.null]) }),
    t.partial({ version: IntegerCodec, orchestratorUrl: t.string }),
  ],
  "AuditEntry",
);

// Web Crypto's random bytes (Node and browsers alike: this file is part of the browser-safe wire's graph), drawn
// 4 KiB at a time: a health round makes one id per change, and a draw of 2 bytes each was a line of its profile.
const randomPool = new Uint16Array(2048);
let randomUsed = randomPool.length;

/** A new entry's id: its time, then a count of this process (6 hex) and random hex (4). */
export const auditEntryId = (at: Date): string => {
  sequence = (sequence + 1) % 0x1000000;
  if (randomUsed === randomPool.length) {
    crypto.getRandomValues(randomPool);
    randomUsed = 0;
  }
  const random = (randomPool[randomUsed++] as number).toString(16).padStart(4, "0");
  return `${at.toISOString()}-${sequence.toString(16).padStart(6, "0")}${random}`;
};

/**
 * How long audit entries are kept: of the changes (`isAuditedChange`) the newest `maxEntries`, of the other
 * entries (attempts) the newest `maxAttempts`, each counted apart; none older than `maxAgeMs`.
 */
export interface AuditRetention {
  readonly maxEntries: number;
  readonly maxAttempts: number;
  readonly maxAgeMs: number;
}

export const DEFAULT_AUDIT_RETENTION: AuditRetention = {
  maxEntries: 10_000,
  maxAttempts: 10_000,
  maxAgeMs: 90 * 24 * 3600 * 1000,
};

/** A page of the trail, newest first: entries of `alias` (any case) at or after `since`, older than the entry `before`. */
export interface AuditQuery {
  readonly alias?: Alias;
  readonly since?: Date;
  readonly before?: string;
  readonly limit: number;
}

export const AUDIT_PAGE_MAX = 1000;
const AUDIT_PAGE_DEFAULT = 100;

/** What every audit entry id looks like (`auditEntryId`). */
export const AUDIT_ID = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z-[0-9a-f]{10}$/;
// A value given as text, parsed; only ever decoded (its guard answers no).
const text = <A>(name: string, message: string, parse: (input: string) => A | undefined) =>
  new t.Type<A, string, unknown>(
    name,
    (_input): _input is A => false,
    (input, context) => {
      const parsed = typeof input === "string" ? parse(input) : undefined;
      return parsed === undefined ? t.failure(input, context, message) : t.success(parsed);
    },
    String,
  );
const SinceCodec = text(
  "Since",
  "must be an RFC 3339 time or date, e.g. 2026-11-22T10:00:00Z or 2026-11-22",
  parseTimeOrDate,
);
const LimitCodec = text("Limit", `must be a whole number from 1 to ${AUDIT_PAGE_MAX}`, (input) =>
  /^\d{1,4}$/.test(input) && Number(input) >= 1 && Number(input) <= AUDIT_PAGE_MAX ? Number(input) : undefined,
);
const BeforeCodec = text("Before", "must be the `next` of an earlier page", (input) =>
  AUDIT_ID.test(input) ? input : undefined,
);

const AuditQueryParts = t.partial({ alias: AliasCodec, since: SinceCodec, limit: LimitCodec, before: BeforeCodec });
const AUDIT_QUERY_NAMES = ["alias", "since", "limit", "before"];

/**
 * The audit query from text (an HTTP query string, command-line options): every part optional. An unknown
 * name is refused without being echoed (a secret pasted there must not come back); each bad part is named.
 */
export const decodeAuditQuery = (input: Readonly<Record<string, unknown>>): E.Either<DomainError, AuditQuery> => {
  if (Object.keys(input).some((name) => !AUDIT_QUERY_NAMES.includes(name))) {
    return E.left(
      invalidInput([
        { field: "query", message: `holds an option the audit does not know (known: ${AUDIT_QUERY_NAMES.join(", ")})` },
      ]),
    );
  }
  return E.map((parts: t.TypeOf<typeof AuditQueryParts>): AuditQuery => ({
    ...parts,
    limit: parts.limit ?? AUDIT_PAGE_DEFAULT,
  }))(decodeQuery(AuditQueryParts)(input));
};

/**
 * The page `query` selects from `entries` (any order), newest first, leaving out what `retention` no
 * longer keeps (too old, or beyond the newest `maxEntries` changes or `maxAttempts` attempts): for stores
 * that hold the trail in memory.
 */
export const selectAuditPage = (
  entries: readonly AuditEntry[],
  query: AuditQuery,
  retention: AuditRetention,
  now = Date.now(),
): readonly AuditEntry[] => {
  const oldest = now - retention.maxAgeMs;
  const alias = query.alias === undefined ? undefined : aliasKey(query.alias);
  return newestRetained(entries, isAuditedChange, retention)
    .filter(
      (entry) =>
        entry.at.getTime() >= oldest &&
        (alias === undefined || (entry.alias !== null && aliasKey(entry.alias) === alias)) &&
        (query.since === undefined || entry.at.getTime() >= query.since.getTime()) &&
        (query.before === undefined || entry.id < query.before),
    )
    .slice(0, query.limit);
};

/** Of `entries`, newest (id) first, those within the retention's counts: the newest changes, and apart the newest attempts. */
export const newestRetained = <A extends { readonly id: string }>(
  entries: readonly A[],
  isChange: (entry: A) => boolean,
  retention: AuditRetention,
): A[] => {
  let changes = 0;
  let attempts = 0;
  return [...entries]
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .filter((entry) =>
      isChange(entry) ? (changes += 1) <= retention.maxEntries : (attempts += 1) <= retention.maxAttempts,
    );
};

/**
 * What a store keeps of an entry that a reader can be asked about before the rest is decoded: its alias, action and
 * outcome as stored (text, not yet checked), so a reader refuses what it may not read without decoding it.
 */
export interface AuditHead {
  readonly alias: string | null;
  readonly action: string;
  readonly outcome: string;
}

/** A page of the trail after a cursor (`AuditLog.listAfter`): the entries selected, and where to read on (null: the end). */
export interface AuditPageAfter {
  readonly entries: readonly AuditEntry[];
  readonly next: string | null;
}

/**
 * Of the entries `retention` keeps that were recorded after the entry `after` (every kept one when null), oldest
 * first, the next `limit`: those `select` keeps, and the id to read on after (null when fewer were left): for stores
 * that hold the trail in memory.
 */
export const selectAuditAfter = (
  entries: readonly AuditEntry[],
  after: string | null,
  limit: number,
  retention: AuditRetention,
  select: (head: AuditHead) => boolean = () => true,
): AuditPageAfter => {
  const read = [...selectAuditPage(entries, { limit: retention.maxEntries + retention.maxAttempts }, retention)]
    .reverse()
    .filter((entry) => after === null || entry.id > after)
    .slice(0, limit);
  return { entries: read.filter(select), next: read.length < limit ? null : (read.at(-1)?.id ?? null) };
};
