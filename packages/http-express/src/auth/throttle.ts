import type { FailureCounter } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";

/** What `reserve` answers: wait, or check once and say how it went. */
export type Reservation =
  | { readonly _tag: "Refused"; readonly retryAfterSeconds: number }
  | {
      readonly _tag: "Granted";
      /** The check failed: its failure stays counted (and blocks the client when it was the last one allowed). */
      readonly failed: () => void;
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
 * first and gives it back when it succeeds; a block learnt from the count is
 * remembered here, so the check on every request stays a map lookup.
 */
export const createLoginThrottle = ({ maxFailures, counter }: LoginThrottleOptions): LoginThrottle => {
  const blockedUntil = new Map<string, number>();

  const remember = (client: string, msLeft: number): void => {
    const now = Date.now();
    for (const [known, until] of blockedUntil) if (until <= now) blockedUntil.delete(known);
    blockedUntil.set(client, now + msLeft);
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
      const counted = await counter.add(client)();
      // The count could not be taken (a store adapter whose fallback failed too): the check runs, as without a throttle.
      if (E.isLeft(counted)) return { _tag: "Granted", failed: () => undefined, giveBack: () => undefined };
      const { count, msLeft } = counted.right;
      if (count > maxFailures) {
        remember(client, msLeft);
        return { _tag: "Refused", retryAfterSeconds: seconds(msLeft) };
      }
      return {
        _tag: "Granted",
        failed: () => {
          if (count === maxFailures) remember(client, msLeft);
        },
        giveBack: () => void counter.remove(client)(),
      };
    },
  };
};
