import pg from "pg";
import { describeDatabaseError } from "./database-errors.js";

export interface ChannelListenerOptions {
  /** Where the LISTEN client comes from when `listener` is not given (checked out for as long as it listens). */
  readonly pool: pg.Pool;
  /** How to open the dedicated LISTEN connection, e.g. `{ connectionString }`. */
  readonly listener?: pg.ClientConfig | undefined;
  /** A lower-case identifier (checked by the caller: LISTEN takes no parameter). */
  readonly channel: string;
  /** Each notification's payload on the channel. */
  readonly onPayload: (payload: string) => void;
  /** Once a lost connection listens again: what was sent meanwhile is lost. */
  readonly onRestored: () => void;
  /** A lost connection or a failed reopening (never with secrets). */
  readonly onError: (message: string) => void;
  /** First delay before reconnecting a lost listener; doubles up to MAX_RECONNECT_DELAY_MS. Default 500 ms. */
  readonly reconnectDelayMs?: number | undefined;
}

// A lost listener tries again at least this often: what it carries (grants, revocations, events) must reach this
// instance within a second of the database's return (SPEC §9, §11), however long it was gone. One refused
// connection a second costs the database nothing.
const MAX_RECONNECT_DELAY_MS = 1_000;

export interface ChannelListener {
  /** True while the LISTEN connection is up. */
  readonly listening: () => boolean;
  /** Stops listening and releases the connection. */
  close(): Promise<void>;
}

type ListenClient = pg.Client | pg.PoolClient;

/**
 * LISTEN on one channel over a connection of its own, reopened with backoff when it is lost. Resolves once
 * LISTEN is in place (rejects when the first opening fails), so nothing notified afterwards is missed.
 */
export const listenChannel = async (options: ChannelListenerOptions): Promise<ChannelListener> => {
  const { pool, channel } = options;
  const firstDelay = Math.min(options.reconnectDelayMs ?? 500, MAX_RECONNECT_DELAY_MS);
  let client: ListenClient | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let delay = firstDelay;

  const onNotification = (message: pg.Notification) => {
    if (message.channel === channel) options.onPayload(message.payload ?? "");
  };

  const open = async (): Promise<ListenClient> => {
    const next: ListenClient = options.listener === undefined ? await pool.connect() : new pg.Client(options.listener);
    try {
      if (options.listener !== undefined) await next.connect();
      next.on("notification", onNotification);
      next.on("error", (error) => lost(next, error));
      next.on("end", () => lost(next, new Error("Connection terminated")));
      await next.query(`listen "${channel}"`);
      return next;
    } catch (error) {
      discard(next, error);
      throw error;
    }
  };

  const discard = (old: ListenClient, error?: unknown) => {
    old.removeAllListeners("notification");
    // Keep an error handler: a dead socket may still emit, and an unhandled 'error' would crash the process.
    old.removeAllListeners("error");
    old.removeAllListeners("end");
    old.on("error", () => undefined);
    if ("release" in old) old.release(error instanceof Error ? error : true);
    else void old.end().catch(() => undefined);
  };

  const lost = (which: ListenClient, error: unknown) => {
    if (client !== which) return;
    client = undefined;
    discard(which, error);
    if (closed) return;
    options.onError(`lost the LISTEN connection (${describeDatabaseError(error)}); reconnecting`);
    schedule();
  };

  const schedule = () => {
    retry = setTimeout(() => {
      retry = undefined;
      if (closed) return;
      open().then(
        (next) => {
          if (closed) return discard(next);
          client = next;
          delay = firstDelay;
          options.onRestored();
        },
        (error: unknown) => {
          options.onError(`cannot reopen the LISTEN connection (${describeDatabaseError(error)}); retrying`);
          delay = Math.min(delay * 2, MAX_RECONNECT_DELAY_MS);
          schedule();
        },
      );
    }, delay);
    retry.unref();
  };

  client = await open();
  return {
    listening: () => client !== undefined,
    close: async () => {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      const current = client;
      client = undefined;
      if (current === undefined) return;
      await current.query(`unlisten "${channel}"`).catch(() => undefined);
      discard(current);
    },
  };
};
