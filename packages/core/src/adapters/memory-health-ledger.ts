import * as E from "fp-ts/lib/Either.js";
import { aliasKey } from "../domain/codecs.js";
import { withCheck, type ConnectionHealth } from "../domain/health.js";
import type { HealthLedger } from "../ports/health-ledger.js";

/** Background health in this process's memory: for the embedded store (one service process) and unit tests. */
export const createInMemoryHealthLedger = (): HealthLedger => {
  const health = new Map<string, ConnectionHealth>();
  const claimedWindow = new Map<string, number>();
  // Per alias key: the key mark warned about and the thresholds claimed for it.
  const warned = new Map<string, { readonly mark: string; readonly thresholds: Set<number> }>();
  return {
    claim: (alias, window) => async () => {
      const key = aliasKey(alias);
      if ((claimedWindow.get(key) ?? -1) >= window) return E.right(false);
      claimedWindow.set(key, window);
      return E.right(true);
    },
    claimKeyWarning: (alias, mark, threshold) => async () => {
      const key = aliasKey(alias);
      const claimed = warned.get(key)?.mark === mark ? warned.get(key) : undefined;
      if (claimed?.thresholds.has(threshold) === true) return E.right(false);
      warned.set(key, { mark, thresholds: new Set([...(claimed?.thresholds ?? []), threshold]) });
      return E.right(true);
    },
    record: (alias, check) => async () => {
      const key = aliasKey(alias);
      const before = health.get(key);
      health.set(key, withCheck(before, alias, check));
      return E.right(before?.state ?? "unknown");
    },
    forget: (alias) => async () => {
      health.delete(aliasKey(alias));
      claimedWindow.delete(aliasKey(alias));
      warned.delete(aliasKey(alias));
      return E.right(undefined);
    },
    list: () => async () => E.right([...health.values()]),
  };
};
