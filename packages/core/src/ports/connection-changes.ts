import type { Alias } from "../domain/codecs.js";

/**
 * Delivered to subscribers instead of an alias when changes may have been
 * missed (e.g. notifications sent while a listener was reconnecting): every
 * connection may have changed, so everything cached about any of them must go.
 */
export const EVERY_CONNECTION: unique symbol = Symbol("every connection");

/** What a subscriber hears: the alias of one changed connection (as published), or `EVERY_CONNECTION`. */
export type ConnectionChangeNotice = string | typeof EVERY_CONNECTION;

/**
 * Tells every instance of the service that a connection was updated or
 * deleted, so caches of what the orchestrator said about it can be dropped.
 * In one process this is a plain event emitter; PostgreSQL carries it across
 * processes with LISTEN/NOTIFY.
 */
export interface ConnectionChanges {
  /** Announces a change; must not fail the caller's write when delivery fails. */
  publish(alias: Alias): Promise<void>;
  /**
   * Calls `listener` with the alias of every change, ours or another instance's, exactly as published
   * (subscribers match it case-insensitively); with `EVERY_CONNECTION` whenever changes may have been
   * lost (an implementation that cannot lose any never sends it). Returns the unsubscriber.
   */
  subscribe(listener: (notice: ConnectionChangeNotice) => void): () => void;
}
