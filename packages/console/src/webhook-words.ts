import type { DeliveryAttempt } from "@sdwan-connections/core/wire";

/** What a receiver answered, in words: `HTTP 200`, or why no answer came. */
export const answerOf = (attempt: DeliveryAttempt): string =>
  attempt.status === null ? `no answer: ${attempt.error ?? "unknown error"}` : `HTTP ${attempt.status}`;

/** Whether the receiver took it (2xx). */
export const took = (attempt: DeliveryAttempt): boolean =>
  attempt.status !== null && attempt.status >= 200 && attempt.status < 300;

/** A ping's outcome, in one sentence. */
export const pingOutcome = (url: string, attempt: DeliveryAttempt): string =>
  attempt.status === null
    ? `Ping not taken: ${url} gave no answer (${attempt.error ?? "unknown error"}) after ${attempt.latencyMs} ms.`
    : `${took(attempt) ? "Ping delivered" : "Ping not taken"}: ${url} answered HTTP ${attempt.status} in ${attempt.latencyMs} ms.`;

/** A webhook's event types, as a field lists them: `connection.health.*, connection.key.*`; every event is `*`. */
export const typesText = (types: readonly string[]): string =>
  types.length === 1 && types[0] === "*" ? "every event" : types.join(", ");

/** The types a field names, comma- or space-separated; none (every event) when empty. */
export const parseTypes = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);
