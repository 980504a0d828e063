import * as E from "fp-ts/lib/Either.js";
import { healthRules, type HealthRecords } from "../domain/health.js";
import type { HealthLedger } from "../ports/health-ledger.js";

/** Background health in this process's memory: for the embedded store (one service process) and unit tests. */
export const createInMemoryHealthLedger = (): HealthLedger => {
  const records: HealthRecords = { connections: new Map(), claims: new Map(), warnings: new Map() };
  return {
    ...healthRules((change) => async () => E.right(change(records).answer)),
    list: () => async () => E.right([...records.connections.values()].map(({ health }) => health)),
  };
};
