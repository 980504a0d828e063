import { createInMemoryFailureCounter } from "./memory-failure-counter.js";
import { createInMemoryHealthLedger } from "./memory-health-ledger.js";
import { createInMemoryConnectionRepository, createInMemoryConnectionStore, type InMemoryConnectionStore } from "./memory-connection-repository.js";
import { createInProcessConnectionChanges } from "./in-process-connection-changes.js";
import { createProcessKeyFingerprints } from "./hmac-fingerprints.js";
import type { KeyFingerprints } from "../ports/key-fingerprints.js";
import type { Storage } from "../ports/storage.js";

export interface InMemoryStorageOptions {
  /** The connections and audit trail; share one between storages to model a restart. */
  readonly store?: InMemoryConnectionStore;
  /** The failed-login window (SDWAN_LOGIN_WINDOW_MS); a minute when not given. */
  readonly failureWindowMs?: number;
}

// One store, one deployment: every storage over a store fingerprints as the first did.
const fingerprintsOf = new WeakMap<InMemoryConnectionStore, KeyFingerprints>();
const fingerprintsFor = (store: InMemoryConnectionStore): KeyFingerprints => {
  const fingerprints = fingerprintsOf.get(store) ?? createProcessKeyFingerprints();
  fingerprintsOf.set(store, fingerprints);
  return fingerprints;
};

/** The Storage port in this process's memory: for tests, benchmarks and embedders' experiments, never production. */
export const createInMemoryStorage = ({ store = createInMemoryConnectionStore(), failureWindowMs = 60_000 }: InMemoryStorageOptions = {}): Storage => ({
  repository: createInMemoryConnectionRepository(store),
  changes: createInProcessConnectionChanges(),
  fingerprints: fingerprintsFor(store),
  audit: store.audit,
  health: createInMemoryHealthLedger(),
  failures: createInMemoryFailureCounter({ windowMs: failureWindowMs }),
  close: async () => undefined,
});
