import { createInMemoryFailureCounter } from "./memory-failure-counter.js";
import { createInMemoryHealthLedger } from "./memory-health-ledger.js";
import {
  createInMemoryConnectionRepository,
  createInMemoryConnectionStore,
  type InMemoryConnectionStore,
} from "./memory-connection-repository.js";
import { createInProcessConnectionChanges } from "./in-process-connection-changes.js";
import { createProcessKeyFingerprints } from "./hmac-fingerprints.js";
import type { KeyFingerprints } from "../ports/key-fingerprints.js";
import type { ServiceTokenStore } from "../ports/service-token-store.js";
import { createInMemoryServiceTokenStore } from "./memory-service-token-store.js";
import type { GrantStore } from "../ports/grant-store.js";
import { createInMemoryGrantStore } from "./memory-grant-store.js";
import type { Storage } from "../ports/storage.js";
import type { WebhookStore } from "../ports/webhook-store.js";
import { createInMemoryWebhookStore } from "./memory-webhook-store.js";
import type { RenewalLedger } from "../ports/renewal-ledger.js";
import { createInMemoryRenewalLedger } from "./memory-renewal-ledger.js";

export interface InMemoryStorageOptions {
  /** The connections and audit trail; share one between storages to model a restart. */
  readonly store?: InMemoryConnectionStore;
  /** The failed-login window (SDWAN_LOGIN_WINDOW_MS); a minute when not given. */
  readonly failureWindowMs?: number;
}

/** One value per store, made at its first storage: what a deployment keeps across restarts. */
const perStore = <A>(make: (store: InMemoryConnectionStore) => A): ((store: InMemoryConnectionStore) => A) => {
  const values = new WeakMap<InMemoryConnectionStore, A>();
  return (store) => {
    const value = values.get(store) ?? make(store);
    values.set(store, value);
    return value;
  };
};
// One store, one deployment: every storage over a store fingerprints as the first did.
const fingerprintsFor = perStore<KeyFingerprints>(() => createProcessKeyFingerprints());
// A store's service tokens outlive a storage over it, as a restart keeps them.
const serviceTokensFor = perStore<ServiceTokenStore>(() => createInMemoryServiceTokenStore());
const renewalsFor = perStore<RenewalLedger>(() => createInMemoryRenewalLedger());
const grantsFor = perStore<GrantStore>(() => createInMemoryGrantStore());
// A store's webhooks and outbox too; the outbox hears the store's audit log as it records (in the same tick).
const webhooksFor = perStore<WebhookStore>((store) => {
  const webhooks = createInMemoryWebhookStore();
  void store.audit.subscribe(webhooks.enqueue)();
  return webhooks;
});

/** The Storage port in this process's memory: for tests, benchmarks and embedders' experiments, never production. */
export const createInMemoryStorage = ({
  store = createInMemoryConnectionStore(),
  failureWindowMs = 60_000,
}: InMemoryStorageOptions = {}): Storage => ({
  repository: createInMemoryConnectionRepository(store),
  changes: createInProcessConnectionChanges(),
  fingerprints: fingerprintsFor(store),
  audit: store.audit,
  health: createInMemoryHealthLedger(),
  renewals: renewalsFor(store),
  failures: createInMemoryFailureCounter({ windowMs: failureWindowMs }),
  serviceTokens: serviceTokensFor(store),
  grants: grantsFor(store),
  webhooks: webhooksFor(store),
  close: async () => undefined,
});
