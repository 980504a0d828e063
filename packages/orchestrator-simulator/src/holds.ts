import type { Socket } from "node:net";
import type { PortalMethod } from "./methods.js";

/**
 * Which calls a hold stops: those of `method`, those made with `key`, or both (each given must match).
 * `when: "before"` (the default) stops a call before the simulator acts on it (nothing changed yet; if its client
 * has gone when it is released, it is dropped, never acted on); `"after"` once it has acted (a token made,
 * downloaded or revoked) and before it answers.
 * `times` (default 1) is how many calls it stops; later ones pass.
 */
export interface HoldMatch {
  readonly method?: PortalMethod;
  readonly key?: string;
  readonly when?: "before" | "after";
  readonly times?: number;
}

/** A hold on the next matching calls (a test hook: e.g. kill a client exactly between two of its calls). */
export interface Hold {
  /** Settles when the first matching call is held. */
  readonly reached: Promise<void>;
  /** How many calls it holds now (a call whose client goes away is let go, and dropped). */
  readonly held: number;
  /** Lets the held calls, and any later matching ones, go on; the hold is spent. */
  release(): void;
}

interface Entry {
  readonly match: HoldMatch;
  left: number;
  released: boolean;
  waiters: (() => void)[];
  reach: () => void;
}

/** The simulator's holds: `hold` makes one, `pass` is what each call awaits at each of its two points. */
export const createHolds = () => {
  const entries = new Set<Entry>();
  const release = (entry: Entry): void => {
    entry.released = true;
    entries.delete(entry);
    for (const wake of entry.waiters.splice(0)) wake();
  };
  return {
    hold: (match: HoldMatch): Hold => {
      let reach = (): void => undefined;
      const reached = new Promise<void>((resolve) => (reach = resolve));
      const entry: Entry = { match, left: match.times ?? 1, released: false, waiters: [], reach };
      entries.add(entry);
      return {
        reached,
        get held() {
          return entry.waiters.length;
        },
        release: () => release(entry),
      };
    },
    /**
     * Waits while a hold stops this call at this point: true once released (or never held), false if its client
     * went away (`socket` closed) while held.
     */
    pass: async (method: PortalMethod, key: string | undefined, when: "before" | "after", socket: Socket) => {
      for (const entry of entries) {
        const { match } = entry;
        if ((match.when ?? "before") !== when || entry.left <= 0) continue;
        if ((match.method !== undefined && match.method !== method) || (match.key !== undefined && match.key !== key))
          continue;
        entry.left -= 1;
        return new Promise<boolean>((resolve) => {
          const wake = () => {
            socket.off("close", gone);
            resolve(true);
          };
          const gone = () => {
            entry.waiters.splice(entry.waiters.indexOf(wake), 1);
            resolve(false);
          };
          socket.once("close", gone);
          entry.waiters.push(wake);
          entry.reach();
        });
      }
      return true;
    },
    /** Whether any hold waits for calls at this point. */
    active: (when: "before" | "after"): boolean =>
      [...entries].some((entry) => (entry.match.when ?? "before") === when && entry.left > 0),
    /** Releases every hold (the simulator stops). */
    releaseAll: () => {
      for (const entry of [...entries]) release(entry);
    },
  };
};
