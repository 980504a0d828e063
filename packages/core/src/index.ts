export { ApiKey } from "./domain/api-key.js";
export {
  AliasCodec,
  ApiKeyCodec,
  OrchestratorUrlCodec,
  aliasKey,
  isUuid,
  ALIAS_MAX_LENGTH,
  ALIAS_PATTERN,
  apiKeyPattern,
  orchestratorUrlPattern,
  IsoTimeCodec,
  versionFromText,
  API_KEY_MAX_LENGTH,
  ORCHESTRATOR_URL_MAX_LENGTH,
  type Alias,
  type OrchestratorUrl,
} from "./domain/codecs.js";
export { parseTime, timeText, writableTime } from "./domain/time.js";
export type {
  Connection,
  ConnectionSummary,
  ExpectedVersions,
  Identity,
  StoredConnection,
  OrchestratorTarget,
} from "./domain/connection.js";
export {
  aliasFreeIn,
  atExpectedVersion,
  KEY_RENEWAL_MODES,
  REFERENCED_KEY_NOT_READ,
  updateOf,
  type KeyRenewal,
} from "./domain/connection.js";
// Keys kept elsewhere (SPEC §12): the reference, the reading rules (one implementation, the CLI's too) and Node's files.
export {
  API_KEY_REF_MAX_LENGTH,
  ApiKeyRefCodec,
  KEY_VARIABLE_PREFIX,
  KeyText,
  type ApiKeyRef,
  type KeyReference,
} from "./domain/key-reference.js";
export type { KeyFiles } from "./ports/key-files.js";
export { nodeKeyFiles, readRegularFile } from "./adapters/node-key-files.js";
export { createKeyReader, type KeySources } from "./services/key-reader.js";
export { readingKeyReferences, refusingUnreadKeys } from "./services/key-references.js";
export { createKeyReferenceWatch } from "./services/key-reference-watch.js";
export {
  daysLeft,
  DEFAULT_KEY_EXPIRY_WARN_DAYS,
  KEY_EXPIRY_SOURCES,
  keyExpiryDetail,
  MAX_API_TOKEN_LIFETIME_MS,
  tokenExpiryOf,
  tokenUuidOf,
  type ApiToken,
  type KeyExpiry,
} from "./domain/key-expiry.js";
export { ANSWER_TEXT } from "./domain/answers.js";
export { BEAT_MS, everyBeat } from "./services/beat.js";
export { Customer, CUSTOMER_FIELDS } from "./domain/customer.js";
export { customerListOf, customerListOfJson, type CustomerList } from "./domain/customer-list.js";
export { admitsDestination } from "./domain/destination.js";
export {
  decodeInput,
  decodeQuery,
  decodeStored,
  invalidStored,
  oneOf,
  repeatedName,
  strictObject,
  toFieldErrors,
} from "./domain/decode.js";
export * from "./domain/errors.js";
export {
  auditEntryId,
  AuditEntryProps,
  AUDIT_PAGE_MAX,
  AUDITED_FIELDS,
  DEFAULT_AUDIT_RETENTION,
  entryAsWritten,
  isAuditedChange,
  newestRetained,
  selectAuditPage,
  type Actor,
  type AuditEntry,
  type AuditHead,
  type AuditPageAfter,
  type AuditRetention,
  type WrittenConnection,
} from "./domain/audit.js";
export type { AuditLog } from "./ports/audit-log.js";
export { createAuditListeners } from "./adapters/audit-listeners.js";
export { CloudEventCodec, EVENT_TYPES, eventOf, eventTypeOf, type CloudEvent } from "./domain/events.js";
export { opennmsEvents, OPENNMS_UEIS, opennmsPing } from "./domain/opennms-event.js";
export type { FeedItem } from "./services/event-feed.js";
export { createInMemoryAuditLog } from "./adapters/memory-audit-log.js";
export type { AuditPage } from "./services/audit-trail.js";
export {
  HEALTH_HISTORY,
  HEALTH_STATES,
  healthRules,
  withCheck,
  type ConnectionHealth,
  type HealthCheck,
  type HealthState,
} from "./domain/health.js";
export type { HealthLedger } from "./ports/health-ledger.js";
export { createInMemoryHealthLedger } from "./adapters/memory-health-ledger.js";
export type { RenewalIntent, RenewalLedger, RenewalRecord } from "./ports/renewal-ledger.js";
export { createInMemoryRenewalLedger } from "./adapters/memory-renewal-ledger.js";
export { createKeyRenewals } from "./services/key-renewals.js";
export { StoredRenewalIntentCodec } from "./domain/key-renewal.js";
export type { FailureCount, FailureCounter } from "./ports/failure-counter.js";
export { createInMemoryFailureCounter } from "./adapters/memory-failure-counter.js";
export {
  AddConnectionRequest,
  CHANGEABLE_FIELDS,
  KeyCheckRequest,
  UpdateConnectionRequest,
} from "./domain/requests.js";
export type { KeyFingerprints } from "./ports/key-fingerprints.js";
export { createProcessKeyFingerprints, hmacFingerprints, masterKeyFingerprints } from "./adapters/hmac-fingerprints.js";
export {
  applyPlan,
  planConfiguration,
  planForNoStore,
  stepName,
  type GrantStep,
  type Plan,
  type PlanStep,
  type StepResult,
} from "./use-cases/configuration.js";
export type { Clock } from "./ports/clock.js";
export { systemClock } from "./adapters/system-clock.js";
export { EVERY_CONNECTION, type ConnectionChangeNotice, type ConnectionChanges } from "./ports/connection-changes.js";
export { createInProcessConnectionChanges } from "./adapters/in-process-connection-changes.js";
export type { ConnectionRepository, KeyRotationReport } from "./ports/connection-repository.js";
export type { ApiTokenRequest, Deadline, Orchestrator } from "./ports/orchestrator.js";
export { aroundTargetCalls, decorateOrchestrator } from "./adapters/decorate-orchestrator.js";
export type { Storage } from "./ports/storage.js";
export type { ServiceToken, ServiceTokenStore } from "./ports/service-token-store.js";
export { createInMemoryServiceTokenStore } from "./adapters/memory-service-token-store.js";
export { listedToken, provenToken, tokenRules, tokensByHash, type StoredServiceToken } from "./domain/service-token.js";
export type { StoredChange } from "./domain/stored-change.js";
export type { GrantStore } from "./ports/grant-store.js";
export { createInMemoryGrantStore } from "./adapters/memory-grant-store.js";
export {
  accessOf,
  type Access,
  AliasPatternCodec,
  GRANT_VERBS,
  GrantRequestCodec,
  grantRules,
  GrantVerbCodec,
  patternMatches,
  SubjectCodec,
  subjectPattern,
  subjectsOf,
  type AliasPattern,
  type Grant,
  type GrantRequest,
  type GrantVerb,
  type Principal,
  type Role,
  type Subject,
} from "./domain/grants.js";
export type { WebhookStore } from "./ports/webhook-store.js";
export { claimable, pendingDelivery, settlementOf, webhookGone } from "./domain/deliveries.js";
export {
  DEFAULT_WEBHOOK_RETRY_S,
  DELIVERIES_PAGE,
  DELIVERY_STATUSES,
  redeliveryOf,
  WEBHOOK_HISTORY,
  WEBHOOK_KINDS,
  webhooksFor,
  withinHistory,
  CreateWebhookRequest,
  type ClaimedDelivery,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryNext,
  type DeliveryStatus,
  type Webhook,
  type WebhookAnswer,
  type WebhookKind,
  type WebhookRequest,
  type WebhookSecrets,
} from "./domain/webhook.js";
export { createInMemoryStorage, type InMemoryStorageOptions } from "./adapters/memory-storage.js";
export type { InMemoryConnectionStore } from "./adapters/memory-connection-repository.js";
export type { CacheOutcome } from "./services/customers-cache.js";
export type { KeyExpiryCounts } from "./services/key-expiry-watch.js";
export { createCore, type CoreOptions } from "./services/core.js";
export type { Audit, By, Connections, Core, Events, Health } from "./services/facades.js";
export {
  CreateTokenRequest,
  isServiceTokenSecret,
  RenewTokenRequest,
  TOKEN_NAME_PATTERN,
  type ServiceTokenRefusal,
  type ServiceTokens,
} from "./services/service-tokens.js";
// The use cases are reached through the facades, which audit every write: none is exported on its own.
export type { GrantService } from "./services/grants.js";
export { validationAnswer, type ValidationResult } from "./use-cases/validate-connection.js";
export { detailsAnswer, type ConnectionDetails } from "./use-cases/describe-connection.js";
export {
  createWebhooks,
  type CreatedWebhook,
  type WebhookSender,
  type Webhooks,
  type WebhooksOptions,
} from "./services/webhooks.js";
