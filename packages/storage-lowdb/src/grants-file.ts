import {
  BEAT_MS,
  everyBeat,
  grantRules,
  type Grant,
  type GrantStore,
  type StoredChange,
} from "@sdwan-connections/core";
import { Grant as GrantCodec } from "@sdwan-connections/core/wire";
import * as E from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import { openSharedJsonFile } from "./shared-json-file.js";

/** Name of the grants' file inside the data directory. */
export const GRANTS_FILE = "grants.json";

const GrantsFileCodec = t.type({ grants: t.array(GrantCodec) });

export interface LowdbGrantStoreOptions {
  /** The data directory, as for `openConnectionsFile`. */
  readonly dataDir: string;
  /** As `openConnectionsFile`'s: after how long a dead process's lock is taken over (ms). */
  readonly lockStaleMs?: number;
  /** How often the file is looked at (a `stat`) for another process's change while someone listens; 250 ms when not given. */
  readonly pollMs?: number;
}

/**
 * Grants in `grants.json` beside `connections.json`, shared by every process over the data directory
 * (`openSharedJsonFile`). While a subscriber listens, the file is looked at every `pollMs`: another process's
 * change is told within a second; this one's, before the change answers.
 */
export const createLowdbGrantStore = ({
  dataDir,
  lockStaleMs,
  pollMs = BEAT_MS,
}: LowdbGrantStoreOptions): GrantStore & { close(): Promise<void> } => {
  const file = openSharedJsonFile({
    dataDir,
    name: GRANTS_FILE,
    codec: GrantsFileCodec,
    empty: { grants: [] },
    lockStaleMs,
  });
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  let poll: (() => void) | undefined;
  let looking = false;
  const look = async () => {
    if (looking) return;
    looking = true;
    try {
      // Read once it changed, so it is not told again; an unreadable file is told too (readers then report it).
      if (await file.changedOnDisk()) {
        await file.read("reading", () => undefined)();
        changed();
      }
    } finally {
      looking = false;
    }
  };
  // A change is told to this process's listeners before it answers.
  const apply =
    <A>(rule: (current: readonly Grant[]) => StoredChange<readonly Grant[], A>) =>
    async () => {
      let changedNow = false;
      const answer = await file.change("writing", ({ grants: current }) => {
        const { next, answer } = rule(current);
        changedNow = next !== undefined;
        return { next: next === undefined ? undefined : { grants: [...next] }, answer };
      })();
      if (changedNow && E.isRight(answer)) changed();
      return answer;
    };

  return {
    list: () => file.read("reading", ({ grants }) => grants),
    add: (grant) => apply(grantRules.add(grant)),
    remove: (id) => apply(grantRules.remove(id)),
    subscribe: (listener) => {
      listeners.add(listener);
      if (poll === undefined) {
        // The version now is the one listeners start from.
        void file.read("reading", () => undefined)();
        poll = everyBeat(pollMs, () => void look());
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0 && poll !== undefined) {
          poll();
          poll = undefined;
        }
      };
    },
    close: async () => {
      poll?.();
      poll = undefined;
      await file.close();
    },
  };
};
