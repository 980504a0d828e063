import type { AuditLog } from "./audit-log.js";
import type { ConnectionChanges } from "./connection-changes.js";
import type { ConnectionRepository } from "./connection-repository.js";
import type { FailureCounter } from "./failure-counter.js";
import type { GrantStore } from "./grant-store.js";
import type { HealthLedger } from "./health-ledger.js";
import type { KeyFingerprints } from "./key-fingerprints.js";
import type { RenewalLedger } from "./renewal-ledger.js";
import type { ServiceTokenStore } from "./service-token-store.js";
import type { WebhookStore } from "./webhook-store.js";

/**
 * A store's whole face, as one `open…Storage(options)` of each store package answers it (and core/testing's
 * `createInMemoryStorage`): everything the service keeps, shared by the instances over that store. A new store
 * capability is a port, its contract suite, one implementation per store and one field here.
 */
export interface Storage {
  readonly repository: ConnectionRepository;
  /** How changes travel between the instances over this store. */
  readonly changes: ConnectionChanges;
  /** apiKey fingerprints keyed by the store's master key. */
  readonly fingerprints: KeyFingerprints;
  readonly audit: AuditLog;
  /** Background health states. */
  readonly health: HealthLedger;
  /** Key renewals in flight and their back-off (SPEC §12). */
  readonly renewals: RenewalLedger;
  /** Failed logins and key checks per client (SDWAN_LOGIN_WINDOW_MS). */
  readonly failures: FailureCounter;
  /** Service tokens, by the hash of their secrets (SPEC §11). */
  readonly serviceTokens: ServiceTokenStore;
  /** Who may do what on which aliases (SPEC §11). */
  readonly grants: GrantStore;
  /** Webhooks and their outbox, which `audit` writes (SPEC §9). */
  readonly webhooks: WebhookStore;
  /** Waits for pending writes, then releases the store (call it after the drivers have drained). */
  close(): Promise<void>;
}
