import { storageFailure, type DomainError } from "@sdwan-connections/core";

/** SQLSTATE of a unique violation: the database refused a second connection with the same alias key. */
export const UNIQUE_VIOLATION = "23505";

const codeOf = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const { code } = error as { code: unknown };
  return typeof code === "string" && /^[A-Z0-9_]{1,40}$/.test(code) ? code : undefined;
};

/** True when `error` is a pg error with SQLSTATE `code`. */
export const hasSqlState = (error: unknown, code: string): boolean => codeOf(error) === code;

// Errors pg raises itself, without a code; matched only to classify, never echoed.
const PG_TIMEOUT =
  /timeout exceeded when trying to connect|Query read timeout|Connection terminated due to connection timeout/;
const PG_TERMINATED =
  /Connection terminated|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end/;
const NODE_NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);

/**
 * Says in our own words why a query failed. The driver's message is never
 * copied: a server message can quote a value, and a connection error from a
 * misconfigured client could quote its connection string (and password).
 * Only the SQLSTATE or Node error code, which are fixed tokens, are kept.
 */
export const describeDatabaseError = (error: unknown): string => {
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : "";
  if (code !== undefined && NODE_NETWORK_CODES.has(code)) return `PostgreSQL cannot be reached (${code})`;
  if (code === undefined) {
    if (PG_TIMEOUT.test(message)) return "PostgreSQL did not answer in time";
    if (PG_TERMINATED.test(message)) return "the connection to PostgreSQL was lost";
    return "PostgreSQL failed for an unknown reason";
  }
  if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03") {
    return `PostgreSQL cannot be reached (SQLSTATE ${code})`;
  }
  if (code.startsWith("28")) return `PostgreSQL refused the credentials (SQLSTATE ${code})`;
  if (code === "3D000") return "the PostgreSQL database does not exist (SQLSTATE 3D000)";
  if (code === "42P01") return "the connections table is missing: run the migrations (SQLSTATE 42P01)";
  if (code === "25006") return "PostgreSQL is read-only (SQLSTATE 25006)";
  if (code === "57014") return "PostgreSQL cancelled the query: statement timeout (SQLSTATE 57014)";
  if (code.startsWith("53")) return `PostgreSQL is out of resources (SQLSTATE ${code})`;
  return `PostgreSQL failed the query (SQLSTATE ${code})`;
};

/** A StorageFailure for a failed database call while doing `what` (e.g. "reading connection 'lab'"). */
export const databaseFailure =
  (what: string) =>
  (error: unknown): DomainError =>
    storageFailure(`Storage failure while ${what}: ${describeDatabaseError(error)}.`);
