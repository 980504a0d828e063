import * as O from "fp-ts/lib/Option.js";

/**
 * How long `Retry-After` asks to wait, in ms: delta-seconds or an HTTP-date
 * (RFC 9110 §10.2.3). None when absent or unreadable; never negative.
 */
export const parseRetryAfter = (header: string | null | undefined, now: number): O.Option<number> => {
  const value = header?.trim();
  if (value === undefined || value === "") return O.none;
  if (/^\d+$/.test(value)) return O.some(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? O.none : O.some(Math.max(0, date - now));
};

/**
 * Exponential backoff with "equal jitter": half of `base * 2^attempt`
 * (capped) for sure, the other half random, so clients that failed together
 * do not retry together. `attempt` counts retries from 0.
 */
export const backoffDelay = (attempt: number, baseMs: number, capMs: number, random: () => number): number => {
  const ceiling = Math.min(capMs, baseMs * 2 ** attempt);
  return ceiling / 2 + random() * (ceiling / 2);
};
