import type { DestinationStream } from "pino";
import type { LogLevel } from "./config.js";
import type { Logger } from "./logger.js";

type LogLine = (fields: object, message: string) => void;

/** The log lines the parts write (the pino logger is one). */
export interface LogSink {
  readonly info: LogLine;
  readonly warn: LogLine;
  readonly error: LogLine;
}

/**
 * A LogSink that loads pino at its first line, for a command that most often logs nothing (the CLI's list
 * then starts without compiling pino); lines keep their order. `flush` waits for what was written.
 */
export const lazyLogSink = (level: LogLevel, destination?: DestinationStream): LogSink & { flush(): Promise<void> } => {
  let logger: Promise<Logger> | undefined;
  const load = () => (logger ??= import("./logger.js").then(({ createLogger }) => createLogger(level, destination)));
  const line =
    (method: keyof LogSink): LogLine =>
    (fields, message) =>
      void load().then((loaded) => loaded[method](fields, message));
  return {
    info: line("info"),
    warn: line("warn"),
    error: line("error"),
    flush: async () => {
      const loaded = await logger;
      await new Promise<void>((resolve) => (loaded === undefined ? resolve() : loaded.flush(() => resolve())));
    },
  };
};
