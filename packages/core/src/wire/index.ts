/**
 * The wire: the io-ts codec of every answer of the REST API (docs/interface.md), its problem body and every enum,
 * once. The service's serializers are typed by them, the CLI and the console decode with them, and the OpenAPI
 * document is made from them. Browser-safe: io-ts, fp-ts and domain files that import nothing from Node.
 * Times decode to Dates (`IsoTimeCodec`), as the domain holds them; JSON writes a Date as its codec encodes it.
 */
export * from "./admin.js";
export * from "./audit.js";
export * from "./connections.js";
export * from "./problem.js";
export * from "./webhooks.js";
export { ANSWER_TEXT } from "../domain/answers.js";
export { AliasCodec, IsoTimeCodec, OrchestratorUrlCodec } from "../domain/codecs.js";
export { AliasPatternCodec, GRANT_VERBS, SubjectCodec } from "../domain/grants.js";
export { AUDIT_ACTIONS, AUDIT_OUTCOMES, VALIDATION_OUTCOMES } from "../domain/audit.js";
export { HEALTH_STATES } from "../domain/health.js";
// The whole days a key has left, as the service counts them (its events' `daysLeft`).
export { daysLeft, KEY_EXPIRY_SOURCES } from "../domain/key-expiry.js";
export { KEY_RENEWAL_MODES } from "../domain/connection.js";
export { ROLES } from "../domain/grants.js";
export { EVENT_TYPE_PREFIX, EVENT_TYPES, type EventType } from "../domain/events.js";
