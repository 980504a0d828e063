import type { ConnectionChangeNotice, ConnectionChanges } from "../ports/connection-changes.js";

/** Changes within one process: enough for the in-memory and file stores (nothing is ever lost, so no `EVERY_CONNECTION`). */
export const createInProcessConnectionChanges = (): ConnectionChanges => {
  const listeners = new Set<(notice: ConnectionChangeNotice) => void>();
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
