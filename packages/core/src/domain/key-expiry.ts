import * as t from "io-ts";
import type { ApiKey } from "./api-key.js";
import type { StoredConnection } from "./connection.js";
import { parseTime, timeText, writableTime } from "./time.js";

/**
 * Where a key's expiry comes from (docs/interface.md §10), in the order they win: the operator's
 * `apiKeyExpiresAt`, the key's own `exp` when it is a JWT, the orchestrator's token list.
 */
export const KEY_EXPIRY_SOURCES = ["declared", "token", "orchestrator"] as const;
export type KeyExpirySource = (typeof KEY_EXPIRY_SOURCES)[number];

export interface KeyExpiry {
  readonly expiresAt: Date;
  readonly source: KeyExpirySource;
}

/** One of the orchestrator's API tokens, as its token list (`getApiTokens`) names it: a key that is one carries its `tokenUuid`. */
export interface ApiToken {
  /** The orchestrator's id of the token: what `revokeApiToken` and `downloadApiToken` name it by. */
  readonly id: number;
  readonly tokenUuid: string;
  /** Unknown when the orchestrator did not say. */
  readonly expiresAt: Date | undefined;
}

/** The expiry the orchestrator's token list gives `apiKey`: that of the token it lists under the key's `tokenUuid`, if any. */
export const listedKeyExpiry = (apiKey: ApiKey, tokens: readonly ApiToken[]): KeyExpiry | undefined => {
  const uuid = tokenUuidOf(apiKey);
  const expiresAt = uuid === undefined ? undefined : tokens.find((token) => token.tokenUuid === uuid)?.expiresAt;
  return expiresAt === undefined ? undefined : { expiresAt, source: "orchestrator" };
};

/** The longest lifetime the orchestrator gives a new API token: 12 months (365 days; `createApiToken`'s cap). */
export const MAX_API_TOKEN_LIFETIME_MS = 365 * 24 * 3600 * 1000;

/** The warning thresholds when none are configured (`SDWAN_KEY_EXPIRY_WARN_DAYS`), in days before the expiry. */
export const DEFAULT_KEY_EXPIRY_WARN_DAYS: readonly number[] = [30, 7, 1];

const DAY_MS = 24 * 3600 * 1000;

// A JWT's claims: its second dot-separated part, base64url JSON. Only `exp` and `tokenUuid` are read; nothing is verified.
const JWT = /^[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*$/;
const Claims = t.partial({ exp: t.number, tokenUuid: t.string });

const claimsOf = (apiKey: ApiKey): t.TypeOf<typeof Claims> => {
  const payload = JWT.exec(apiKey.reveal())?.[1];
  if (payload === undefined) return {};
  try {
    const decoded = Claims.decode(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
    return decoded._tag === "Right" ? decoded.right : {};
  } catch {
    return {};
  }
};

/**
 * The expiry a key states itself, when it is a JWT with a finite numeric `exp` (seconds since the epoch): read, never
 * verified. An `exp` past the year 9999 (RFC 3339 cannot write it) is read as none: such a key states no expiry that
 * matters, and every time the service shows is RFC 3339 (issue 36: 8.64e12 was shown as `+275760-…`).
 */
export const tokenExpiryOf = (apiKey: ApiKey): Date | undefined => {
  const { exp } = claimsOf(apiKey);
  const time = exp !== undefined && Number.isFinite(exp) ? new Date(exp * 1000) : undefined;
  return time === undefined || Number.isNaN(time.getTime()) ? undefined : writableTime(time);
};

/** The orchestrator's id of a key that is one of its API tokens (a JWT's `tokenUuid` claim): how its token list names it. */
export const tokenUuidOf = (apiKey: ApiKey): string | undefined => claimsOf(apiKey).tokenUuid;

/** The expiry known without asking the orchestrator: the declared one, else the key's own. */
export const storedKeyExpiry = (
  connection: Pick<StoredConnection, "apiKey" | "apiKeyExpiresAt">,
): KeyExpiry | undefined => {
  if (connection.apiKeyExpiresAt !== undefined) return { expiresAt: connection.apiKeyExpiresAt, source: "declared" };
  const token = tokenExpiryOf(connection.apiKey);
  return token === undefined ? undefined : { expiresAt: token, source: "token" };
};

/** Whole days left before `expiresAt`, rounded up (a key expiring in 6.5 days has 7 left); 0 or less once expired. */
export const daysLeft = (expiresAt: Date, now: Date): number =>
  Math.ceil((expiresAt.getTime() - now.getTime()) / DAY_MS) + 0; // + 0: never -0

/**
 * The warning due now, if any: `0` once the key has expired, else the smallest threshold (days) whose moment
 * has passed. Only the most urgent one: a service that was down past the 30-day mark and back at 5 days left
 * warns for 7, not for 30 as well.
 */
export const dueThreshold = (expiresAt: Date, now: Date, thresholds: readonly number[]): number | undefined => {
  const left = expiresAt.getTime() - now.getTime();
  if (left <= 0) return 0;
  const crossed = thresholds.filter((days) => days > 0 && left <= days * DAY_MS);
  return crossed.length === 0 ? undefined : Math.min(...crossed);
};

/**
 * Which key a warning is about, for "once per key": a new key (a new key date) or a new expiry starts its
 * thresholds again; an update of the URL alone does not.
 */
export const keyMark = (connection: Pick<StoredConnection, "apiKeySetAt">, expiry: KeyExpiry): string =>
  `${connection.apiKeySetAt ? timeText(connection.apiKeySetAt) : "undated"}/${timeText(expiry.expiresAt)}`;

/** What a key-expiry audit entry's `detail` says, in one parseable form (`parseKeyExpiryDetail`). */
export interface KeyExpiryDetail {
  readonly expiresAt: Date;
  readonly daysLeft: number;
  readonly source: KeyExpirySource;
  /** The threshold crossed, in days; 0 at expiry. */
  readonly threshold: number;
}

export const keyExpiryDetail = ({ expiresAt, daysLeft: left, source, threshold }: KeyExpiryDetail): string =>
  `expiresAt=${timeText(expiresAt)} daysLeft=${left} source=${source} threshold=${threshold}`;

const DETAIL = /^expiresAt=(\S+) daysLeft=(-?\d+) source=(declared|token|orchestrator) threshold=(\d+)$/;

/** The detail of a `key-expiring` or `key-expired` entry, read back (for events); undefined for any other text. */
export const parseKeyExpiryDetail = (detail: string | null): KeyExpiryDetail | undefined => {
  const match = DETAIL.exec(detail ?? "");
  if (match === null) return undefined;
  const [, at = "", left = "", source = "", threshold = ""] = match;
  const expiresAt = parseTime(at);
  return expiresAt === undefined
    ? undefined
    : { expiresAt, daysLeft: Number(left), source: source as KeyExpirySource, threshold: Number(threshold) };
};
