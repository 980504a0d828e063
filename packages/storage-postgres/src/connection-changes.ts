import { randomUUID } from "node:crypto";
import * as E from "fp-ts/lib/Either.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import type pg from "pg";
import {
  AliasCodec,
  EVERY_CONNECTION,
  type ConnectionChangeNotice,
  type ConnectionChanges,
  type DomainError,
} from "@sdwan-connections/core";
import { databaseFailure, describeDatabaseError } from "./database-errors.js";
import { listenChannel } from "./listen-channel.js";

/** The NOTIFY channel used when none is given. */
export const DEFAULT_CHANGES_CHANNEL = "sdwan_connection_changes";

// LISTEN takes an identifier, which cannot be a query parameter: allow only a plain lower-case name.
const CHANNEL_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** What travels in a notification: the alias, and which instance sent it (so it ignores its own echo). */
const ChangeMessage = t.type({ origin: t.string, alias: AliasCodec });

export interface PostgresConnectionChangesOptions {
  /** Publishes through this pool (`select pg_notify($1, $2)`). */
  readonly pool: pg.Pool;
  /**
   * How to open the dedicated LISTEN connection, e.g. `{ connectionString }`.
   * Without it, one client is checked out of `pool` for as long as this adapter lives.
   */
  readonly listener?: pg.ClientConfig;
  /** Channel name (lower-case identifier); instances sharing a database must agree on it. */
  readonly channel?: string;
  /** Reports a lost listener, a failed publish or an unreadable notification (never with secrets); e.g. log a warning. */
  readonly onError?: (message: string) => void;
  /** First delay before reconnecting a lost listener; doubles up to 1 s (listen-channel.ts). Default 500 ms. */
  readonly reconnectDelayMs?: number;
}

export interface PostgresConnectionChanges extends ConnectionChanges {
  /** True while the LISTEN connection is up (other instances' changes arrive). */
  readonly listening: () => boolean;
  /** Stops listening and releases the LISTEN connection; publish still delivers locally afterwards. */
  close(): Promise<void>;
}

/**
 * Core's ConnectionChanges across instances with PostgreSQL LISTEN/NOTIFY.
 *
 * `publish` tells this process's listeners at once (so a local cache drop
 * never waits for, or depends on, the database), then sends a NOTIFY tagged
 * with this instance's id; the listener ignores its own echo, so a local
 * change is delivered exactly once here and once on every other instance.
 * A lost LISTEN connection is reopened with backoff; notifications sent while
 * it was down are lost, so once it listens again this instance's listeners
 * hear `EVERY_CONNECTION` (drop everything cached), and no answer is older
 * than the outage.
 *
 * Resolves once LISTEN is in place, so no change published afterwards is missed.
 */
export const createPostgresConnectionChanges = (
  options: PostgresConnectionChangesOptions,
): TE.TaskEither<DomainError, PostgresConnectionChanges> => {
  const channel = options.channel ?? DEFAULT_CHANGES_CHANNEL;
  if (!CHANNEL_PATTERN.test(channel))
    throw new RangeError("channel must be a lower-case identifier of at most 63 characters");
  const { pool } = options;
  const origin = randomUUID();
  const listeners = new Set<(notice: ConnectionChangeNotice) => void>();
  const report = (message: string) => options.onError?.(message);

  const deliver = (notice: ConnectionChangeNotice) => {
    for (const listener of listeners) {
      try {
        listener(notice);
      } catch {
        report("a connection-change listener threw; the others were still called");
      }
    }
  };

  const onPayload = (payload: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch {
      parsed = undefined;
    }
    const decoded = ChangeMessage.decode(parsed);
    if (E.isLeft(decoded)) return report(`ignored an unreadable notification on channel ${channel}`);
    if (decoded.right.origin !== origin) deliver(decoded.right.alias);
  };

  return TE.tryCatch(async () => {
    const listening = await listenChannel({
      pool,
      listener: options.listener,
      channel,
      onPayload,
      // What was announced while we were not listening is lost: everything may have changed.
      onRestored: () => deliver(EVERY_CONNECTION),
      onError: report,
      reconnectDelayMs: options.reconnectDelayMs,
    });
    return {
      listening: listening.listening,
      publish: async (alias) => {
        deliver(alias);
        try {
          await pool.query("select pg_notify($1, $2)", [channel, JSON.stringify({ origin, alias })]);
        } catch (error) {
          // Must not fail the caller's write: other instances keep their cache until its TTL instead.
          report(`cannot announce a connection change (${describeDatabaseError(error)})`);
        }
      },
      subscribe: (listener) => {
        const wrapped = (notice: ConnectionChangeNotice) => listener(notice);
        listeners.add(wrapped);
        return () => {
          listeners.delete(wrapped);
        };
      },
      close: listening.close,
    };
  }, databaseFailure("listening for connection changes"));
};
