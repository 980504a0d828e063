import * as E from "fp-ts/lib/Either.js";
import type { FailureCounter, FailureCount } from "../ports/failure-counter.js";

const NONE: FailureCount = { count: 0, msLeft: 0 };
const MIN_SWEEP = 1_024;

/**
 * Failures in this process's memory: for the embedded store (one service
 * process) and tests. Every operation completes in one turn of the event
 * loop, so `add` is atomic. Ended windows are forgotten as others are opened.
 */
export const createInMemoryFailureCounter = ({ windowMs }: { readonly windowMs: number }): FailureCounter => {
  const windows = new Map<string, { count: number; readonly endsAt: number }>();
  let sweepAt = MIN_SWEEP;
  const open = (client: string) => {
    const window = windows.get(client);
    return window !== undefined && window.endsAt > Date.now() ? window : undefined;
  };
  const countOf = (window: { count: number; readonly endsAt: number } | undefined): FailureCount =>
    window === undefined ? NONE : { count: window.count, msLeft: window.endsAt - Date.now() };
  return {
    add: (client) => async () => {
      const window = open(client);
      if (window !== undefined) {
        window.count += 1;
        return E.right(countOf(window));
      }
      const at = Date.now();
      // Ended windows are swept when the map has doubled since the last sweep: amortised constant time per failure.
      if (windows.size >= sweepAt) {
        for (const [known, { endsAt }] of windows) if (endsAt <= at) windows.delete(known);
        sweepAt = Math.max(MIN_SWEEP, windows.size * 2);
      }
      const opened = { count: 1, endsAt: at + windowMs };
      windows.set(client, opened);
      return E.right(countOf(opened));
    },
    remove: (client) => async () => {
      const window = open(client);
      if (window !== undefined && window.count > 0) window.count -= 1;
      return E.right(undefined);
    },
    peek: (client) => async () => E.right(countOf(open(client))),
  };
};
