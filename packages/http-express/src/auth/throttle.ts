import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

export interface LoginThrottle {
  /** Seconds the client must wait before trying again, as this instance last learnt it; undefined when it may try now. Synchronous: it runs on every request. */
  retryAfterSeconds(client: string): number | undefined;
  /** The same, asked of the shared count (several instances on PostgreSQL); for requests that need a full credentials check anyway. */
  blockedSeconds(client: string): Promise<number | undefined>;
  /** Counts one failed login of `client`. */
  recordFailure(client: string): void;
}

export interface LoginThrottleOptions {
  readonly maxFailures: number;
  readonly windowMs: number;
  /** Where failures are counted; defaults to this process's memory. A PostgreSQL store lets instances share one count. */
  readonly limiter?: RateLimiterAbstract;
}

/** The count of failures: a fixed window per client, opened by its first failure (rate-limiter-flexible). */
export const memoryLimiter = ({ maxFailures, windowMs }: Pick<LoginThrottleOptions, "maxFailures" | "windowMs">): RateLimiterMemory =>
  new RateLimiterMemory({ points: maxFailures, duration: Math.ceil(windowMs / 1000) });

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * Once `maxFailures` failures of one client fall inside a window of
 * `windowMs` opened by its first failure, the client is refused until the
 * window ends. The counting is rate-limiter-flexible's; what it answers is
 * remembered here, so the check on every request stays a map lookup.
 */
export const createLoginThrottle = ({ maxFailures, windowMs, limiter = memoryLimiter({ maxFailures, windowMs }) }: LoginThrottleOptions): LoginThrottle => {
  const blockedUntil = new Map<string, number>();

  const remember = (client: string, answer: unknown): void => {
    if (!(answer instanceof RateLimiterRes) || answer.consumedPoints < maxFailures) return;
    const now = Date.now();
    for (const [known, until] of blockedUntil) if (until <= now) blockedUntil.delete(known);
    blockedUntil.set(client, now + answer.msBeforeNext);
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
    blockedSeconds: async (client) => {
      const answer = await limiter.get(client).catch(() => null);
      if (answer === null || answer.consumedPoints < maxFailures || answer.msBeforeNext <= 0) return undefined;
      remember(client, answer);
      return seconds(answer.msBeforeNext);
    },
    recordFailure: (client) => {
      // Refused once the points are spent: either way the answer says how long the window still runs.
      limiter.consume(client).then(
        (answer) => remember(client, answer),
        (answer: unknown) => remember(client, answer),
      );
    },
  };
};
