import type { Clock } from "@sdwan-connections/core";

export interface LoginThrottle {
  /** Seconds the client must wait before trying again, or undefined when it may try now. */
  retryAfterSeconds(client: string): number | undefined;
  /** Counts one failed login of `client`. */
  recordFailure(client: string): void;
}

export interface LoginThrottleOptions {
  readonly maxFailures: number;
  readonly windowMs: number;
  readonly clock: Clock;
  /** Clients tracked at most; beyond it, expired windows are swept, then the oldest dropped. */
  readonly maxClients?: number;
}

/**
 * A fixed window per client: the first failure opens a window of `windowMs`;
 * once `maxFailures` failures fall inside it, the client is refused until it ends.
 */
export const createLoginThrottle = ({ maxFailures, windowMs, clock, maxClients = 10_000 }: LoginThrottleOptions): LoginThrottle => {
  const windows = new Map<string, { readonly endsAt: number; failures: number }>();

  const current = (client: string, now: number) => {
    const window = windows.get(client);
    if (window !== undefined && window.endsAt <= now) {
      windows.delete(client);
      return undefined;
    }
    return window;
  };

  const sweep = (now: number): void => {
    for (const [client, window] of windows) if (window.endsAt <= now) windows.delete(client);
    while (windows.size >= maxClients) {
      const oldest = windows.keys().next().value;
      if (oldest === undefined) break;
      windows.delete(oldest);
    }
  };

  return {
    retryAfterSeconds: (client) => {
      if (windows.size === 0) return undefined;
      const now = clock.now();
      const window = current(client, now);
      return window !== undefined && window.failures >= maxFailures ? Math.max(1, Math.ceil((window.endsAt - now) / 1000)) : undefined;
    },
    recordFailure: (client) => {
      const now = clock.now();
      const window = current(client, now);
      if (window !== undefined) {
        window.failures += 1;
        return;
      }
      if (windows.size >= maxClients) sweep(now);
      windows.set(client, { endsAt: now + windowMs, failures: 1 });
    },
  };
};
