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
  Rfc3339TimeCodec,
  versionFromText,
  API_KEY_MAX_LENGTH,
  ORCHESTRATOR_URL_MAX_LENGTH,
  type Alias,
  type OrchestratorUrl,
} from "./domain/codecs.js";
export { parseTime, parseTimeOrDate, timeText, writableTime } from "./domain/time.js";
export type {
  Connection,
  ConnectionChange,
  ConnectionKind,
  ConnectionSummary,
  ExpectedVersions,
  Identity,
  StoredConnection,
  OrchestratorTarget,
} from "./domain/connection.js";
export {
  aliasFreeIn,
  atExpectedVersion,
  CONNECTION_KINDS,
  declaredExpiryAfter,
  KEY_RENEWAL_MODES,
  keyRenewalAfter,
  REFERENCED_KEY_NOT_READ,
  sameTime,
  setsAnotherKey,
  type KeyRenewal,
} from "./domain/connection.js";
// Keys kept elsewhere (SPEC §12): the reference, the reading rules (one implementation, the CLI's too) and Node's files.
export {
  API_KEY_REF_MAX_LENGTH,
  ApiKeyRefCodec,
  decodeKeyText,
  isMasterKeyText,
  KEY_FILE_MAX_BYTES,
  KEY_VARIABLE_PREFIX,
  keyReferenceOf,
  KeyText,
  masterKeysIn,
  type ApiKeyRef,
  type KeyReference,
} from "./domain/key-reference.js";
export type { KeyFiles, OpenedFile } from "./ports/key-files.js";
export { nodeKeyFiles, readRegularFile } from "./adapters/node-key-files.js";
export { createKeyReader, type KeyReader, type KeySources } from "./services/key-reader.js";
export { readingKeyReferences, refusingKeyReader, refusingUnreadKeys } from "./services/key-references.js";
export {
  createKeyReferenceWatch,
  DEFAULT_KEY_REREAD_INTERVAL_MS,
  type KeyReferenceWatch,
} from "./services/key-reference-watch.js";
export {
  daysLeft,
  DEFAULT_KEY_EXPIRY_WARN_DAYS,
  KEY_EXPIRY_SOURCES,
  keyExpiryDetail,
  listedKeyExpiry,
  MAX_API_TOKEN_LIFETIME_MS,
  parseKeyExpiryDetail,
  storedKeyExpiry,
  tokenExpiryOf,
  tokenUuidOf,
  type ApiToken,
  type KeyExpiry,
  type KeyExpiryDetail,
  type KeyExpirySource,
} from "./domain/key-expiry.js";
export { ANSWER_TEXT } from "./domain/answers.js";
export { Customer, CUSTOMER_FIELDS } from "./domain/customer.js";
export { customerListOf, customerListOfJson, type CustomerList } from "./domain/customer-list.js";
export { admitsDestination, METADATA_HOST_NAMES } from "./domain/destination.js";
export { decodeInput, invalidStored, oneOf, strictObject, toFieldErrors } from "./domain/decode.js";
export * from "./domain/errors.js";
export {
  auditEntryId,
  AuditEntryProps,
  AUDIT_PAGE_MAX,
  AUDIT_ACTIONS,
  AUDIT_OUTCOMES,
  AUDITED_FIELDS,
  decodeAuditQuery,
  DEFAULT_AUDIT_RETENTION,
  entryAsWritten,
  isAuditedChange,
  newestRetained,
  selectAuditAfter,
  selectAuditPage,
  type Actor,
  type AuditAction,
  type AuditEntry,
  type AuditFailure,
  type AuditHead,
  type AuditOutcome,
  type AuditPageAfter,
  type AuditQuery,
  type AuditRetention,
  type AuditedField,
  type ValidationOutcome,
  VALIDATION_OUTCOMES,
} from "./domain/audit.js";
export type { AuditLog } from "./ports/audit-log.js";
export { createAuditListeners } from "./adapters/audit-listeners.js";
export {
  CloudEventCodec,
  decodeEventsQuery,
  EVENT_SOURCE,
  EVENT_TYPE_PREFIX,
  EVENT_TYPES,
  eventOf,
  eventTypeOf,
  selectsEvent,
  selectsStored,
  type CloudEvent,
  type EventsQuery,
  type EventType,
} from "./domain/events.js";
export {
  opennmsEvents,
  OPENNMS_EVENT_NAMESPACE,
  OPENNMS_EVENT_SOURCE,
  OPENNMS_UEIS,
  opennmsPing,
  type OpennmsEventDocument,
} from "./domain/opennms-event.js";
export type { FeedDelivery, FeedItem, FollowOptions } from "./services/event-feed.js";
export { createInMemoryAuditLog } from "./adapters/memory-audit-log.js";
export type { AuditedToken, AuditPage, TokenChange, WebhookChange } from "./services/audit-trail.js";
export {
  HEALTH_CHECK_OUTCOMES,
  HEALTH_HISTORY,
  HEALTH_STATES,
  healthOutcomeOf,
  withCheck,
  type ConnectionHealth,
  type HealthCheck,
  type HealthState,
} from "./domain/health.js";
export type { HealthLedger } from "./ports/health-ledger.js";
export { createInMemoryHealthLedger } from "./adapters/memory-health-ledger.js";
export type { RenewalIntent, RenewalLedger, RenewalRecord } from "./ports/renewal-ledger.js";
export { createInMemoryRenewalLedger } from "./adapters/memory-renewal-ledger.js";
export { createKeyRenewals, type KeyRenewals, type KeyRenewalsOptions } from "./services/key-renewals.js";
export {
  DEFAULT_KEY_RENEW_DAYS,
  DEFAULT_KEY_RENEW_OVERLAP_HOURS,
  keyRenewalDetail,
  parseKeyRenewalDetail,
  RENEWAL_ACTOR,
  RENEWAL_STEPS,
  StoredRenewalIntentCodec,
  type RenewalStep,
  renewalBackoffMs,
  renewalDue,
  type KeyRenewalDetail,
} from "./domain/key-renewal.js";
export type { FailureCount, FailureCounter } from "./ports/failure-counter.js";
export { createInMemoryFailureCounter } from "./adapters/memory-failure-counter.js";
export type { HealthChange, HealthMonitor, HealthMonitorOptions } from "./services/health-monitor.js";
export { AddConnectionRequest, KeyCheckRequest, UpdateConnectionRequest } from "./domain/requests.js";
export type { KeyFingerprints } from "./ports/key-fingerprints.js";
export { createProcessKeyFingerprints, hmacFingerprints, masterKeyFingerprints } from "./adapters/hmac-fingerprints.js";
export {
  applyPlan,
  planConfiguration,
  planForNoStore,
  stepName,
  type ApplyOptions,
  type DesiredConnection,
  type GrantStep,
  type Plan,
  type PlanOptions,
  type PlanStep,
  type StepResult,
} from "./use-cases/configuration.js";
export type { Clock } from "./ports/clock.js";
export { systemClock } from "./adapters/system-clock.js";
export { EVERY_CONNECTION, type ConnectionChangeNotice, type ConnectionChanges } from "./ports/connection-changes.js";
export { createInProcessConnectionChanges } from "./adapters/in-process-connection-changes.js";
export type { ConnectionRepository, KeyRotationReport } from "./ports/connection-repository.js";
export type { ApiTokenRequest, Deadline, Orchestrator } from "./ports/orchestrator.js";
export {
  aroundTargetCalls,
  decorateOrchestrator,
  TARGET_CALLS,
  type TargetCall,
} from "./adapters/decorate-orchestrator.js";
export type { Storage } from "./ports/storage.js";
export type {
  ServiceToken,
  ServiceTokenRenewal,
  ServiceTokenRole,
  ServiceTokenStore,
} from "./ports/service-token-store.js";
export { createInMemoryServiceTokenStore } from "./adapters/memory-service-token-store.js";
export { listedToken, provenToken, tokenRules, tokensByHash, type StoredServiceToken } from "./domain/service-token.js";
export type { StoredChange } from "./domain/stored-change.js";
export type { GrantStore } from "./ports/grant-store.js";
export { createInMemoryGrantStore } from "./adapters/memory-grant-store.js";
export {
  accessOf,
  type Access,
  AliasPatternCodec,
  describeGrant,
  GRANT_VERBS,
  grantRules,
  GrantRequestCodec,
  GrantVerbCodec,
  patternMatches,
  sameGrant,
  SubjectCodec,
  subjectPattern,
  subjectsOf,
  verbsOf,
  type AliasPattern,
  type Grant,
  type GrantRequest,
  type GrantVerb,
  type Principal,
  type Role,
  type Subject,
} from "./domain/grants.js";
export type { WebhookStore } from "./ports/webhook-store.js";
export { createInMemoryWebhookStore } from "./adapters/memory-webhook-store.js";
export { claimable, pendingDelivery, settlementOf, webhookGone } from "./domain/deliveries.js";
export {
  DEFAULT_WEBHOOK_RETRY_S,
  DELIVERIES_PAGE,
  DELIVERY_STATUSES,
  decodeWebhookRequest,
  newWebhookSecret,
  nextAfter,
  pingBody,
  redeliveryOf,
  WEBHOOK_ENCODERS,
  WEBHOOK_HISTORY,
  WEBHOOK_KINDS,
  webhookRequest,
  webhookSelects,
  webhooksFor,
  webhookSignature,
  withinHistory,
  type ClaimedDelivery,
  type Delivery,
  type DeliveryAttempt,
  type DeliveryNext,
  type DeliveryStatus,
  type DeliveriesQuery,
  type Redelivery,
  type Webhook,
  type WebhookAnswer,
  type WebhookKind,
  type WebhookRequest,
  type WebhookRequestBody,
  type WebhookSecrets,
} from "./domain/webhook.js";
export { createInMemoryStorage, type InMemoryStorageOptions } from "./adapters/memory-storage.js";
export type { InMemoryConnectionStore } from "./adapters/memory-connection-repository.js";
export type { CacheOutcome } from "./services/customers-cache.js";
export type { KeyExpiryCounts } from "./services/key-expiry-watch.js";
export { createCore, DEFAULT_CUSTOMERS_CACHE_TTL_MS, type CoreOptions } from "./services/core.js";
export type { Audit, By, Connections, Core, Events, Health } from "./services/facades.js";
export { isServiceTokenSecret, type ServiceTokenRefusal, type ServiceTokens } from "./services/service-tokens.js";
// The use cases are reached through the facades, which audit every write: none is exported on its own.
export type { GrantService } from "./services/grants.js";
export type { AddConnectionOptions, AddConnectionOutcome } from "./use-cases/add-connection.js";
export type { DeleteConnectionOptions } from "./use-cases/delete-connection.js";
export type { UpdateConnectionOptions, UpdateConnectionOutcome } from "./use-cases/update-connection.js";
export { validationAnswer, type ValidationResult } from "./use-cases/validate-connection.js";
export { detailsAnswer, type ConnectionDetails } from "./use-cases/describe-connection.js";
export {
  createWebhooks,
  WEBHOOK_TIMEOUT_MS,
  type CreatedWebhook,
  type WebhookSender,
  type Webhooks,
  type WebhooksOptions,
} from "./services/webhooks.js";
