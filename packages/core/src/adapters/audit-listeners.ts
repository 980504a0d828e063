import type { AuditEntry } from "../domain/audit.js";

/** The listeners of an audit log's `subscribe` in one process: each told every entry, one that throws never stopping the others. */
export const createAuditListeners = () => {
  const listeners = new Set<(entry: AuditEntry) => void>();
  return {
    /** Adds `listener`; answers its remover. */
    add: (listener: (entry: AuditEntry) => void): (() => void) => {
      const own = (entry: AuditEntry) => listener(entry);
      listeners.add(own);
      return () => void listeners.delete(own);
    },
    tell: (entry: AuditEntry): void => {
      for (const listener of listeners) {
        try {
          listener(entry);
        } catch {
          // A reader's failure is its own (its stream ends); the entry is recorded either way.
        }
      }
    },
    /** Whether anyone listens (a store that must watch for other processes' entries does so only then). */
    size: (): number => listeners.size,
  };
};
