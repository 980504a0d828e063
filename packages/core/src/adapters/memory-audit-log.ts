import * as E from "fp-ts/lib/Either.js";
import { DEFAULT_AUDIT_RETENTION, retainedAuditEntries, selectAuditPage, type AuditEntry, type AuditRetention } from "../domain/audit.js";
import type { AuditLog } from "../ports/audit-log.js";

/**
 * An audit log in this process's memory: the default when core is embedded without a store, and the fake
 * of unit tests. It passes the same contract suite as the stores' logs; it is gone with the process.
 */
export const createInMemoryAuditLog = (retention: AuditRetention = DEFAULT_AUDIT_RETENTION): AuditLog => {
  let entries: readonly AuditEntry[] = [];
  return {
    record: (entry) => async () => {
      entries = retainedAuditEntries([...entries, entry], retention);
      return E.right(undefined);
    },
    list: (query) => async () => E.right(selectAuditPage(entries, query, retention)),
  };
};
