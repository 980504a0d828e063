import type { FailureCounter } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";

/** What `reserve` answers: wait, or check once and say how it went. */
export type Reservation =
  | { readonly _tag: "Refused"; readonly retryAfterSeconds: number }
  | {
      readonly _tag: "Granted";
      /** The check failed: its failure stays counted (and the client is blocked here once the shared count, less this instance's checks under way, is at the limit). */
      readonly failed: () => Promise<void>;
      /** The check succeeded, or was not made: its failure is taken back. */
      readonly giveBack: () => void;
    };

export interface LoginThrottle {
  /** Seconds the client must wait before trying again, as this instance last learnt it; undefined when it may try now. Synchronous: it runs on every request. */
  retryAfterSeconds(client: string): number | undefined;
  /**
   * Counts one failure of `client` before an expensive check (bcrypt, a key comparison), atomically in the
   * shared count, so that however many requests arrive at once, at most `maxFailures` checks run per window.
   */
  reserve(client: string): Promise<Reservation>;
}

export interface LoginThrottleOptions {
  readonly maxFailures: number;
  /** Where failures are counted, in a window opened by a client's first failure: the store's, shared by its instances. */
  readonly counter: FailureCounter;
}

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * Once `maxFailures` failures of one client fall inside its window, the
 * client is refused until the window ends. Each check reserves its failure
 * first and gives it back when it succeeds; a refused request gives its
 * point back too, so the shared count is always the failures plus the checks
 * under way. A block is remembered here (so the check on every request stays
 * a map lookup) only once the count is at the limit without this instance's
 * own checks still under way, which may yet succeed: a burst of good
 * credentials never locks their client out.
 */
export const createLoginThrottle = ({ maxFailures, counter }: LoginThrottleOptions): LoginThrottle => {
  const blockedUntil = new Map<string, number>();
  // This instance's reservations not settled yet, by client: checks under way, and refusals giving their point back.
  const pending = new Map<string, number>();
  const enter = (client: string): void => void pending.set(client, (pending.get(client) ?? 0) + 1);
  const leave = (client: string): void => {
    const left = (pending.get(client) ?? 1) - 1;
    if (left === 0) pending.delete(client);
    else pending.set(client, left);
  };

  const remember = (client: string, msLeft: number): void => {
    const now = Date.now();
    for (const [known, until] of blockedUntil) if (until <= now) blockedUntil.delete(known);
    blockedUntil.set(client, now + msLeft);
  };
  // Blocked for the rest of the window when the shared count, less what this instance has under way, is at the limit.
  const learn = async (client: string): Promise<void> => {
    const now = await counter.peek(client)();
    if (E.isRight(now) && now.right.count - (pending.get(client) ?? 0) >= maxFailures) remember(client, now.right.msLeft);
  };

  return {
    retryAfterSeconds: (client) => {
      if (blockedUntil.size === 0) return undefined;
      const until = blockedUntil.get(client);
      if (until === undefined) return undefined;
      const left = until - Date.now();
      if (left > 0) return seconds(left);
      blockedUntil.delete(client);
      return undefined;
    },
    reserve: async (client) => {
      enter(client);
      const counted = await counter.add(client)();
      // The count could not be taken (a store adapter whose fallback failed too): the check runs, as without a throttle.
      if (E.isLeft(counted)) {
        leave(client);
        return { _tag: "Granted", failed: () => Promise.resolve(), giveBack: () => undefined };
      }
      if (counted.right.count > maxFailures) {
        await counter.remove(client)();
        leave(client);
        await learn(client);
        return { _tag: "Refused", retryAfterSeconds: seconds(counted.right.msLeft) };
      }
      return {
        _tag: "Granted",
        failed: async () => {
          leave(client);
          await learn(client);
        },
        giveBack: () => {
          leave(client);
          void counter.remove(client)();
        },
      };
    },
  };
};
