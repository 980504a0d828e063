import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import type * as T from "fp-ts/lib/Task.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { aliasKey, type Alias } from "../domain/codecs.js";
import type { StoredConnection } from "../domain/connection.js";
import type { DomainError } from "../domain/errors.js";
import {
  daysLeft,
  dueThreshold,
  keyExpiryDetail,
  keyMark,
  listedKeyExpiry,
  storedKeyExpiry,
  tokenUuidOf,
  type KeyExpiry,
} from "../domain/key-expiry.js";
import type { Clock } from "../ports/clock.js";
import type { ConnectionRepository } from "../ports/connection-repository.js";
import type { HealthLedger } from "../ports/health-ledger.js";
import type { Orchestrator } from "../ports/orchestrator.js";
import type { ServiceToken, ServiceTokenStore } from "../ports/service-token-store.js";
import { repeatRounds } from "./rounds.js";

/** How many keys expire (or have expired) within 7 and within 30 days, for `/metrics`. */
export interface KeyExpiryCounts {
  readonly within7Days: number;
  readonly within30Days: number;
}

/** The connection a key warning is about: its alias, and its orchestrator URL for the warning's event. */
export interface WarnedConnection {
  readonly alias: Alias;
  readonly orchestratorUrl: string;
}

export interface KeyExpiryWatchOptions {
  readonly repository: ConnectionRepository;
  /** Where the warnings made are claimed: once per key and threshold, across instances and restarts. */
  readonly ledger: HealthLedger;
  /** Records a warning's audit entry (the audit trail's `keyExpiryWarned`). */
  readonly warn: (
    connection: WarnedConnection,
    action: "key-expiring" | "key-expired",
    detail: string,
    at: Date,
  ) => void;
  /** Days before the expiry to warn at (`SDWAN_KEY_EXPIRY_WARN_DAYS`). */
  readonly thresholds: readonly number[];
  readonly clock: Clock;
  /** Asked for its token list (best effort) about a key that is an orchestrator token stating no expiry; none: never asked. */
  readonly orchestrator?: Orchestrator | undefined;
  /** The service tokens (SPEC §11), warned of like keys at every scan; none: not watched. */
  readonly tokens?: ServiceTokenStore | undefined;
  /** Records a token's warning (the audit trail's `tokenExpiryWarned`). */
  readonly warnToken?: (action: "token-expiring" | "token-expired", detail: string, at: Date) => void;
  /** A ledger or store that could not be read or written; the watch goes on. */
  readonly onError?: ((error: DomainError) => void) | undefined;
}

const DAY_MS = 24 * 3600 * 1000;

// A token's warnings are claimed under `token:ID`: `:` is no alias character, so no connection's claims meet them.
const tokenClaim = (token: ServiceToken) => `token:${token.id}` as Alias;

/** What a token's warning says: its principal and expiry, never its secret. */
export const tokenExpiryDetail = (token: ServiceToken, now: Date, threshold: number): string =>
  `token:${token.name} expiresAt=${token.expiresAt.toISOString()} daysLeft=${daysLeft(token.expiresAt, now)} threshold=${threshold}`;

/**
 * Watches the keys' expiry (docs/interface.md §10): `check` warns, through the audit trail, when a key crosses
 * a threshold or expires, each warning once per key (claimed in the ledger, so one instance makes it, once,
 * whatever restarts), and keeps the expiry of every connection it saw for the counts of `/metrics`.
 */
export const createKeyExpiryWatch = ({
  repository,
  ledger,
  warn,
  thresholds,
  clock,
  orchestrator,
  tokens,
  warnToken,
  onError,
}: KeyExpiryWatchOptions) => {
  const known = new Map<string, Date>();
  // What the orchestrator's token list told of each connection's key (undefined: nothing, or not allowed to
  // read it), under a mark of the key and URL asked about: asked once per key, not per round.
  const learnedByAlias = new Map<string, { readonly mark: string; readonly expiry: KeyExpiry | undefined }>();
  const markOf = (connection: StoredConnection, uuid: string) =>
    `${connection.apiKeySetAt?.toISOString() ?? "undated"} ${uuid} ${connection.orchestratorUrl}`;

  /** The expiry the orchestrator told of the connection's present key, if it was asked. */
  const learned = (connection: StoredConnection): KeyExpiry | undefined => {
    const uuid = tokenUuidOf(connection.apiKey);
    const remembered = learnedByAlias.get(aliasKey(connection.alias));
    return uuid !== undefined && remembered?.mark === markOf(connection, uuid) ? remembered.expiry : undefined;
  };

  /**
   * The orchestrator's word on a key that is one of its tokens (a `tokenUuid`), asked once per key: a refusal
   * (a key without the right to read tokens) is remembered as unknown and never makes the key invalid; an
   * orchestrator not reached is asked again next time.
   */
  const ask = async (connection: StoredConnection): Promise<KeyExpiry | undefined> => {
    const uuid = tokenUuidOf(connection.apiKey);
    const key = aliasKey(connection.alias);
    if (uuid === undefined || orchestrator === undefined) return undefined;
    const mark = markOf(connection, uuid);
    const remembered = learnedByAlias.get(key);
    if (remembered?.mark === mark) return remembered.expiry;
    const target = { orchestratorUrl: connection.orchestratorUrl, apiKey: connection.apiKey };
    const deadline = orchestrator.startDeadline();
    const tokens = await pipe(
      orchestrator.identify(target, deadline),
      TE.flatMap((identity) => orchestrator.listApiTokens(target, identity, deadline)),
    )();
    if (E.isLeft(tokens) && tokens.left._tag !== "OrchestratorRejected") return undefined;
    const expiry = E.isRight(tokens) ? listedKeyExpiry(connection.apiKey, tokens.right) : undefined;
    learnedByAlias.set(key, { mark, expiry });
    return expiry;
  };

  /**
   * Notes the connection's expiry (stored, else the orchestrator's: asked with `ask`, else as last told) and,
   * with `warn`, makes the warning due.
   */
  const check =
    (connection: StoredConnection, { warn: warnNow = true, ask: asking = true } = {}): T.Task<void> =>
    async () => {
      const expiry = storedKeyExpiry(connection) ?? (asking ? await ask(connection) : learned(connection));
      if (expiry === undefined) {
        known.delete(aliasKey(connection.alias));
        return;
      }
      known.set(aliasKey(connection.alias), expiry.expiresAt);
      const now = new Date(clock.now());
      const threshold = warnNow ? dueThreshold(expiry.expiresAt, now, thresholds) : undefined;
      if (threshold === undefined) return;
      const claimed = await ledger.claimKeyWarning(connection.alias, keyMark(connection, expiry), threshold)();
      if (E.isLeft(claimed)) return onError?.(claimed.left);
      if (!claimed.right) return;
      const detail = keyExpiryDetail({
        expiresAt: expiry.expiresAt,
        daysLeft: daysLeft(expiry.expiresAt, now),
        source: expiry.source,
        threshold,
      });
      warn(connection, threshold === 0 ? "key-expired" : "key-expiring", detail, now);
    };

  /**
   * Every service token's expiry checked, warning at the thresholds and at expiry, once per token, expiry and
   * threshold (a renewal's new expiry starts them again), whichever instance claims it first.
   */
  const scanTokens = async (): Promise<void> => {
    if (tokens === undefined || warnToken === undefined) return;
    const listed = await tokens.list()();
    if (E.isLeft(listed)) return onError?.(listed.left);
    const now = new Date(clock.now());
    for (const token of listed.right) {
      const threshold = dueThreshold(token.expiresAt, now, thresholds);
      if (threshold === undefined) continue;
      const claimed = await ledger.claimKeyWarning(tokenClaim(token), token.expiresAt.toISOString(), threshold)();
      if (E.isLeft(claimed)) onError?.(claimed.left);
      else if (claimed.right)
        warnToken(threshold === 0 ? "token-expired" : "token-expiring", tokenExpiryDetail(token, now, threshold), now);
    }
  };

  /**
   * Every stored connection's stored expiry (declared, or the key's own) checked, warning with `warnNow`; then
   * every service token's, warning always (no health round looks at tokens).
   */
  const scan =
    (warnNow: boolean): T.Task<void> =>
    async () => {
      const listed = await repository.list()();
      if (E.isLeft(listed)) return onError?.(listed.left);
      const present = new Set(listed.right.map(({ alias }) => aliasKey(alias)));
      for (const map of [known, learnedByAlias]) for (const key of map.keys()) if (!present.has(key)) map.delete(key);
      for (const { alias } of listed.right) {
        const stored = await repository.get(alias)();
        if (E.isRight(stored)) await check(stored.right, { warn: warnNow })();
        else if (stored.left._tag !== "NotFound") onError?.(stored.left);
      }
      await scanTokens();
    };

  const counts = (): KeyExpiryCounts => {
    const now = clock.now();
    const within = (days: number) =>
      [...known.values()].filter((expiresAt) => expiresAt.getTime() - now <= days * DAY_MS).length;
    return { within7Days: within(7), within30Days: within(30) };
  };

  let scans: ReturnType<typeof repeatRounds> | undefined;
  return {
    check,
    scan,
    counts,
    learned,
    /** The connection's key expiry: stored (declared, or the key's own), else the orchestrator's (asked once per key). */
    expiryOf: async (connection: StoredConnection): Promise<KeyExpiry | undefined> =>
      storedKeyExpiry(connection) ?? (await ask(connection)),
    /** The connection is gone: its expiry no longer counts. */
    forget: (alias: string): void => {
      known.delete(aliasKey(alias));
      learnedByAlias.delete(aliasKey(alias));
    },
    /** A scan now and then a day after each, warning with `warnNow` (when no background health rounds do). */
    start: (warnNow: boolean): void => {
      scans ??= repeatRounds(scan(warnNow), () => DAY_MS);
      scans.start();
    },
    stop: async (): Promise<void> => {
      await scans?.stop();
      scans = undefined;
    },
  };
};
