import type { Alias } from "../domain/codecs.js";

/**
 * Tells every instance of the service that a connection was updated or
 * deleted, so caches of what the orchestrator said about it can be dropped.
 * In one process this is a plain event emitter; PostgreSQL carries it across
 * processes with LISTEN/NOTIFY.
 */
export interface ConnectionChanges {
  /** Announces a change; must not fail the caller's write when delivery fails. */
  publish(alias: Alias): Promise<void>;
  /** Calls `listener` with the alias of every change, ours or another instance's. Returns the unsubscriber. */
  subscribe(listener: (alias: string) => void): () => void;
}

/** Changes within one process: enough for the in-memory and file stores. */
export const createInProcessConnectionChanges = (): ConnectionChanges => {
  const listeners = new Set<(alias: string) => void>();
  return {
    publish: async (alias) => {
      for (const listener of listeners) listener(alias);
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
};
