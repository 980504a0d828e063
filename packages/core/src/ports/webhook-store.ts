import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { DomainError } from "../domain/errors.js";
import type {
  ClaimedDelivery,
  Delivery,
  DeliveryAttempt,
  DeliveryNext,
  DeliveryStatus,
  Redelivery,
  Webhook,
  WebhookSecrets,
} from "../domain/webhook.js";
import type { KeyRotationReport } from "./connection-repository.js";

/**
 * Webhooks and their outbox (SPEC §9), shared by every instance over one store. The store seals the secrets as it
 * seals apiKeys. The outbox is written by the store's audit log: recording an entry that is an event writes, in
 * the same transaction (the embedded store: the same append), one pending delivery per enabled webhook that
 * wants it, so an acknowledged change always has its deliveries. Relays on any instance claim them. An id is the
 * caller's text (a URL's path): one no webhook has, of any form (not a lower-case UUID, core's `isUuid`, included),
 * is answered as unknown by every read and removal by id, never as a failure.
 */
export interface WebhookStore {
  create(webhook: Webhook, secrets: WebhookSecrets): TaskEither<DomainError, void>;
  /** Every webhook, oldest first. */
  list(): TaskEither<DomainError, readonly Webhook[]>;
  get(id: string): TaskEither<DomainError, Webhook | undefined>;
  /** Removes webhook `id` and its deliveries; false when unknown. */
  remove(id: string): TaskEither<DomainError, boolean>;
  /**
   * Claims, for `owner` until `leaseUntil`, at most `limit` deliveries due at `now`: per enabled webhook a run of
   * its oldest pending ones, oldest first, ending before the first that is not due or that another owner's lease
   * still holds (events reach a webhook in order; one owner at a time has them). A lease that ran out (its owner
   * died) is claimed again: at least once.
   */
  claim(owner: string, now: Date, leaseUntil: Date, limit: number): TaskEither<DomainError, readonly ClaimedDelivery[]>;
  /**
   * Records `attempt` on delivery `id` and what follows (`gone`: the delivery is dead and its webhook disabled),
   * by the next change of the store at the latest (a store may write settlements with its next claim: one lost
   * in a crash means the delivery is made again). Nothing when `owner`'s lease was taken over meanwhile.
   */
  settle(id: string, owner: string, attempt: DeliveryAttempt, next: DeliveryNext): TaskEither<DomainError, void>;
  /**
   * Webhook `id`'s newest `limit` deliveries (of `status` only, when given), newest first (their attempts, never
   * bodies). The store keeps every pending delivery and the newest `WEBHOOK_HISTORY` settled ones of each webhook:
   * settlements delete those beyond.
   */
  deliveries(id: string, limit: number, status?: DeliveryStatus): TaskEither<DomainError, readonly Delivery[]>;
  /**
   * A new attempt of webhook `webhookId`'s settled delivery `deliveryId`: a new pending delivery of the same event,
   * due at `at`, after the webhook's other deliveries (core's `redeliveryOf` decides). The event comes from the
   * delivery when the store kept it, else from the audit trail. Atomic: two redeliveries at once queue one.
   */
  redeliver(webhookId: string, deliveryId: string, at: Date): TaskEither<DomainError, Redelivery>;
  /** Webhook `id`'s secrets, opened (for a ping). */
  secrets(id: string): TaskEither<DomainError, WebhookSecrets | undefined>;
  /** Re-seals every secret sealed with an older master key (as `ConnectionRepository.resealKeys`). */
  resealSecrets(): TaskEither<DomainError, KeyRotationReport>;
}
