import * as E from "fp-ts/lib/Either.js";
import { aliasKey } from "../domain/codecs.js";
import type { RenewalLedger, RenewalRecord } from "../ports/renewal-ledger.js";

/** Renewal records in this process's memory (nothing at rest, so nothing to seal): for unit tests and embedders. */
export const createInMemoryRenewalLedger = (): RenewalLedger => {
  const records = new Map<string, RenewalRecord>();
  const leases = new Map<string, { readonly owner: string; readonly until: number }>();
  const holds = (key: string, owner: string) => leases.get(key)?.owner === owner;
  return {
    acquire: (alias, owner, now, leaseUntil) => async () => {
      const key = aliasKey(alias);
      const lease = leases.get(key);
      if (lease !== undefined && lease.owner !== owner && lease.until > now.getTime()) return E.right(undefined);
      leases.set(key, { owner, until: leaseUntil.getTime() });
      return E.right(records.get(key) ?? { alias, intent: undefined, failures: 0, retryAt: undefined });
    },
    save: (record, owner) => async () => {
      const key = aliasKey(record.alias);
      if (!holds(key, owner)) return E.right(false);
      if (record.intent === undefined && record.failures === 0) records.delete(key);
      else records.set(key, { ...record, alias: records.get(key)?.alias ?? record.alias });
      return E.right(true);
    },
    release: (alias, owner) => async () => {
      if (holds(aliasKey(alias), owner)) leases.delete(aliasKey(alias));
      return E.right(undefined);
    },
    list: () => async () => E.right([...records.values()]),
  };
};
