import { pino, type DestinationStream, type Logger } from "pino";
import type { LogLevel } from "./config.js";

export type { Logger } from "pino";

/**
 * Paths pino blanks out whatever we pass it: the request logger never logs
 * headers or bodies, this is the second line of defence.
 */
export const REDACTED_PATHS = [
  "authorization",
  "headers.authorization",
  "req.headers.authorization",
  "apiKey",
  "*.apiKey",
  "body",
  "*.body",
  "password",
  "*.password",
];

// pino's isoTime, formatted once per millisecond: a busy service logs several request lines in one (the http bench's
// profile of GET /connections: isoTime 1.1% of the service's samples, its toISOString at every line).
let formattedAt = Number.NaN;
let formatted = "";
const isoTime = (): string => {
  const now = Date.now();
  if (now !== formattedAt) {
    formattedAt = now;
    formatted = `,"time":"${new Date(now).toISOString()}"`;
  }
  return formatted;
};

/** JSON logs on stdout, written at once as node writes stdout (or `destination`, for tests that read what was logged). */
export const createLogger = (level: LogLevel, destination?: DestinationStream): Logger =>
  pino(
    {
      level,
      base: { service: "sdwan-connections" },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
