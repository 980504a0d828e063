import * as E from "fp-ts/lib/Either.js";
import {
  DEFAULT_AUDIT_RETENTION,
  selectAuditAfter,
  selectAuditPage,
  type AuditEntry,
  type AuditRetention,
} from "../domain/audit.js";
import type { AuditLog } from "../ports/audit-log.js";
import { createAuditListeners } from "./audit-listeners.js";

/**
 * An audit log in this process's memory: the default when core is embedded without a store, and the fake
 * of unit tests. It passes the same contract suite as the stores' logs; it is gone with the process.
 */
export const createInMemoryAuditLog = (retention: AuditRetention = DEFAULT_AUDIT_RETENTION): AuditLog => {
  let entries: AuditEntry[] = [];
  // Reads apply the retention themselves; a record only appends, and drops what the retention no longer keeps
  // once the log holds twice what it may keep: amortized constant work per entry, where pruning at every
  // record sorted the whole log each time (a first health round over 10,000 connections records 10,000).
  const most = 2 * (retention.maxEntries + retention.maxAttempts);
  const listeners = createAuditListeners();
  return {
    record: (entry) => async () => {
      entries.push(entry);
      if (entries.length > most) entries = [...selectAuditPage(entries, { limit: most / 2 }, retention)].reverse();
      listeners.tell(entry);
      return E.right(undefined);
    },
    list: (query) => async () => E.right(selectAuditPage(entries, query, retention)),
    listAfter: (after, limit, select) => async () =>
      E.right(selectAuditAfter(entries, after, limit, retention, select)),
    subscribe: (listener) => async () => E.right(listeners.add(listener)),
  };
};
