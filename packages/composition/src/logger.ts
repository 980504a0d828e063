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

/** JSON logs on stdout, written at once as node writes stdout (or `destination`, for tests that read what was logged). */
export const createLogger = (level: LogLevel, destination?: DestinationStream): Logger =>
  pino(
    {
      level,
      base: { service: "sdwan-connections" },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: true }),
  );
