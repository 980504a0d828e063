import * as t from "io-ts";
import { OrchestratorUrlCodec } from "./codecs.js";
import { oneOf } from "./decode.js";
import { IsoTimeCodec, parseTime, timeText } from "./time.js";

/** Days before its expiry a key with `keyRenewal: auto` is renewed, when not configured (`SDWAN_KEY_RENEW_DAYS`). */
export const DEFAULT_KEY_RENEW_DAYS = 30;
/** Hours the old partner token keeps working after its successor is stored (`SDWAN_KEY_RENEW_OVERLAP_H`). */
export const DEFAULT_KEY_RENEW_OVERLAP_HOURS = 24;
/** Who the audit trail says made a renewal (SPEC §12). */
export const RENEWAL_ACTOR = "renewal";

const DAY_MS = 24 * 3600 * 1000;

/** Whether a key expiring at `expiresAt` is due for renewal at `now`: within `renewDays` of its expiry (or past it). */
export const renewalDue = (expiresAt: Date, now: Date, renewDays: number): boolean =>
  expiresAt.getTime() - now.getTime() <= renewDays * DAY_MS;

/** The wait before the next attempt after `failures` failures in a row: `baseMs` doubled each time, at most a day. */
export const renewalBackoffMs = (failures: number, baseMs: number): number =>
  Math.min(baseMs * 2 ** Math.max(0, failures - 1), DAY_MS);

/** What a `key-renew` entry's `detail` says: how the key was renewed and the new key's expiry, if known. */
export interface KeyRenewalDetail {
  readonly method: "refresh" | "create";
  readonly expiresAt: Date | undefined;
}

export const keyRenewalDetail = ({ method, expiresAt }: KeyRenewalDetail): string =>
  `method=${method} expiresAt=${expiresAt === undefined ? "unknown" : timeText(expiresAt)}`;

const DETAIL = /^method=(refresh|create) expiresAt=(\S+)$/;

/** The detail of a `key-renew` entry, read back (for its event); undefined for any other text. */
export const parseKeyRenewalDetail = (detail: string | null): KeyRenewalDetail | undefined => {
  const match = DETAIL.exec(detail ?? "");
  if (match === null) return undefined;
  const [, method = "", at = ""] = match;
  return { method: method as KeyRenewalDetail["method"], expiresAt: at === "unknown" ? undefined : parseTime(at) };
};

/**
 * How far a renewal got (SPEC §12), each step recorded before the next one starts, so that whoever finds the
 * intent after a crash knows what may exist at the orchestrator:
 * - `started`: nothing received yet (a partner's new token may have been made, never downloaded);
 * - `created`: the partner's new token `tokenId` exists, perhaps downloaded (its key then lost with the crash);
 * - `received`: the new key is in `newKey` (sealed at rest), not yet stored in the connection;
 * - `stored`: the connection holds the new key; the old token `oldTokenId` is revoked at `revokeAt`.
 */
export const RENEWAL_STEPS = ["started", "created", "received", "stored"] as const;
export type RenewalStep = (typeof RENEWAL_STEPS)[number];

/**
 * A renewal intent as a store writes it, all but its new key (which the store seals apart): JSON with ISO times.
 * Stores decode what they read back with it.
 */
export const StoredRenewalIntentCodec = t.intersection([
  t.type({
    id: t.string,
    method: oneOf(["refresh", "create"] as const),
    identity: t.union([
      t.type({ kind: t.literal("partner"), partnerId: t.number }),
      t.type({ kind: t.literal("customer"), customerId: t.number }),
    ]),
    fromVersion: t.number,
    step: oneOf(RENEWAL_STEPS),
    startedAt: IsoTimeCodec,
  }),
  t.partial({ orchestratorUrl: OrchestratorUrlCodec, tokenId: t.number, oldTokenId: t.number, revokeAt: IsoTimeCodec }),
]);
