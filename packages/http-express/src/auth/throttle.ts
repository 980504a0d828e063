import type { DomainError, FailureCounter } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";

/** A check about to be made: the client's address (behind the trusted proxies) and the user name it is for. */
export interface Attempt {
  readonly address: string;
  readonly user: string;
}

/** What `reserve` answers: wait, check once and say how it went, or no check while the shared count cannot be kept. */
export type Reservation =
  | { readonly _tag: "Refused"; readonly retryAfterSeconds: number }
  | { readonly _tag: "Unavailable"; readonly error: DomainError }
  | {
      readonly _tag: "Granted";
      /** The check failed: its failure stays counted (and its name or address is blocked here once the shared count, less this instance's checks under way, is at the limit). */
      readonly failed: () => Promise<void>;
      /** The check succeeded, or was not made: its failure is taken back. */
      readonly giveBack: () => void;
    };

export interface LoginThrottle {
  /**
   * Seconds before `address` (trying `user`, when known) may try again, as this instance last learnt it;
   * undefined when it may try now. Synchronous: it runs on every request.
   */
  retryAfterSeconds(address: string, user: string | undefined): number | undefined;
  /**
   * Counts one failure of the attempt before an expensive check (bcrypt, a key comparison), atomically in the
   * shared count, so that however many requests arrive at once, at most the limits' checks run per window.
   */
  reserve(attempt: Attempt): Promise<Reservation>;
}

export interface LoginThrottleOptions {
  /** Failures of one user name from one address in a window (SDWAN_LOGIN_MAX_FAILURES). */
  readonly maxFailures: number;
  /** Where failures are counted, in a window opened by a key's first failure: the store's, shared by its instances. */
  readonly counter: FailureCounter;
}

/**
 * An address may fail this many times `maxFailures` over all the user names it tries: one guesser hammering one
 * name (stopped at `maxFailures` by its own key) never blocks the address, a spray over names is stopped there, and
 * up to that many users behind one address may sign in at once (their checks under way count until they succeed).
 */
export const ADDRESS_LIMIT_FACTOR = 10;

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/** The counter's key of one user name tried from one address; an address (an IP, or "key-check <IP>") never contains " as ". */
const pairKey = ({ address, user }: Attempt): string => `${address} as ${user}`;

interface Gate {
  retryAfterSeconds(key: string): number | undefined;
  reserve(key: string): Promise<Reservation>;
}

/**
 * Once `limit` failures of one key fall inside its window, the key is
 * refused until the window ends. Each check reserves its failure first and
 * gives it back when it succeeds; a refused request gives its point back too,
 * so the shared count is always the failures plus the checks under way. A
 * block is remembered here (so the check on every request stays a map
 * lookup) only once the count is at the limit without this instance's own
 * checks still under way, which may yet succeed: a burst of good credentials
 * never locks their key out. Without the shared count, no check is made.
 */
const createGate = (counter: FailureCounter, limit: number): Gate => {
  const blockedUntil = new Map<string, number>();
  // This instance's reservations not settled yet, by key: checks under way, and refusals giving their point back.
  const pending = new Map<string, number>();
  const enter = (key: string): void => void pending.set(key, (pending.get(key) ?? 0) + 1);
  const leave = (key: string): void => {
    const left = (pending.get(key) ?? 1) - 1;
    if (left === 0) pending.delete(key);
    else pending.set(key, left);
  };

  const remember = (key: string, msLeft: number): void => {
    const now = Date.now();
    for (const [known, until] of blockedUntil) if (until <= now) blockedUntil.delete(known);
    blockedUntil.set(key, now + msLeft);
  };
  // Blocked for the rest of the window when the shared count, less what this instance has under way, is at the limit.
  const learn = async (key: string): Promise<void> => {
    const now = await counter.peek(key)();
    if (E.isRight(now) && now.right.count - (pending.get(key) ?? 0) >= limit) remember(key, now.right.msLeft);
  };

  return {
    retryAfterSeconds: (key) => {
      if (blockedUntil.size === 0) return undefined;
      const until = blockedUntil.get(key);
      if (until === undefined) return undefined;
      const left = until - Date.now();
      if (left > 0) return seconds(left);
      blockedUntil.delete(key);
      return undefined;
    },
    reserve: async (key) => {
      enter(key);
      const counted = await counter.add(key)();
      // The shared count cannot be kept (the database is down): no check, rather than one no other instance would see.
      if (E.isLeft(counted)) {
        leave(key);
        return { _tag: "Unavailable", error: counted.left };
      }
      if (counted.right.count > limit) {
        await counter.remove(key)();
        leave(key);
        await learn(key);
        return { _tag: "Refused", retryAfterSeconds: seconds(counted.right.msLeft) };
      }
      return {
        _tag: "Granted",
        failed: async () => {
          leave(key);
          await learn(key);
        },
        giveBack: () => {
          leave(key);
          void counter.remove(key)();
        },
      };
    },
  };
};

/**
 * Failed checks counted per user name and address (the SPEC's "client":
 * `maxFailures` each) and per address over every name it tries
 * (`ADDRESS_LIMIT_FACTOR` times as many). A guesser is stopped on the name it
 * hammers without locking out the others behind its address, a spray over
 * names is stopped at the address, and a right password is refused only when
 * its own name and address, or its address as a whole, is over the limit.
 */
export const createLoginThrottle = ({ maxFailures, counter }: LoginThrottleOptions): LoginThrottle => {
  const pairs = createGate(counter, maxFailures);
  const addresses = createGate(counter, maxFailures * ADDRESS_LIMIT_FACTOR);
  const later = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined ? b : b === undefined ? a : Math.max(a, b);
  return {
    retryAfterSeconds: (address, user) =>
      later(
        addresses.retryAfterSeconds(address),
        user === undefined ? undefined : pairs.retryAfterSeconds(pairKey({ address, user })),
      ),
    reserve: async (attempt) => {
      // The name first: a guesser stopped on its name takes no point of its address's.
      const pair = await pairs.reserve(pairKey(attempt));
      if (pair._tag !== "Granted") return pair;
      const address = await addresses.reserve(attempt.address);
      if (address._tag !== "Granted") {
        pair.giveBack();
        return address;
      }
      return {
        _tag: "Granted",
        failed: async () => void (await Promise.all([pair.failed(), address.failed()])),
        giveBack: () => {
          pair.giveBack();
          address.giveBack();
        },
      };
    },
  };
};
