import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { ApiKey } from "../domain/api-key.js";
import type { Alias, OrchestratorUrl } from "../domain/codecs.js";
import type { Identity } from "../domain/connection.js";
import type { DomainError } from "../domain/errors.js";
import type { RenewalStep } from "../domain/key-renewal.js";

/** One renewal in flight. Never a key in plain text at rest: `newKey` is sealed by the store, as apiKeys are. */
export interface RenewalIntent {
  /** Names the renewal (and the partner token it makes). */
  readonly id: string;
  /** `refresh` a customer key, or `create` a partner key's successor. */
  readonly method: "refresh" | "create";
  /** Whose key it is, as the orchestrator identified it. */
  readonly identity: Identity;
  /** The connection's version the renewal started from: the swap is made only at it (a manual change wins). */
  readonly fromVersion: number;
  readonly step: RenewalStep;
  readonly startedAt: Date;
  /** Where the token is made: it is revoked there even once the connection is gone (deleted mid-renewal). */
  readonly orchestratorUrl?: OrchestratorUrl;
  /** The partner's new token, once made. */
  readonly tokenId?: number;
  /** The token of the key replaced (a partner's), revoked after the overlap; absent when not known. */
  readonly oldTokenId?: number;
  /** The new key, from its receipt until it is stored in the connection. */
  readonly newKey?: ApiKey;
  /** When the old token is revoked (step `stored`). */
  readonly revokeAt?: Date;
}

/** What is kept of one connection's renewals: the one in flight, and the failures in a row since the last success. */
export interface RenewalRecord {
  readonly alias: Alias;
  readonly intent: RenewalIntent | undefined;
  readonly failures: number;
  /** No new renewal starts before this (a back-off after failures); undefined: any time. */
  readonly retryAt: Date | undefined;
}

/**
 * Where renewals are recorded, shared by every instance over one store (SPEC §12). A record is held by one owner
 * at a time (a lease), so one instance renews a connection at a time; a lease not released (its instance died)
 * ends at its `leaseUntil`, and the next owner finishes what the record says.
 */
export interface RenewalLedger {
  /**
   * Takes `alias`'s renewals for `owner` until `leaseUntil`, when nobody else holds them at `now` (no lease, an
   * ended one, or `owner`'s own): answers its record (no intent, no failures when none is kept); undefined when
   * another owner holds it. Exactly one of several owners asking at once gets it.
   */
  acquire(alias: Alias, owner: string, now: Date, leaseUntil: Date): TaskEither<DomainError, RenewalRecord | undefined>;
  /**
   * Replaces the record while `owner` holds it (false, nothing changed, when another took it over); durable when
   * it answers. A record with no intent and no failures may be dropped: it reads back as none.
   */
  save(record: RenewalRecord, owner: string): TaskEither<DomainError, boolean>;
  /** Ends `owner`'s lease on `alias` (the record kept); nothing when another holds it. */
  release(alias: Alias, owner: string): TaskEither<DomainError, void>;
  /** Every record kept (any case of alias, as first recorded), held or not. */
  list(): TaskEither<DomainError, readonly RenewalRecord[]>;
}
