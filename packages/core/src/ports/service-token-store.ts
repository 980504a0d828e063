import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { DomainError } from "../domain/errors.js";

/** What a service token may do without grants (SPEC §5's roles). */
export type ServiceTokenRole = "admin" | "viewer";

/** A service token as it is listed: never its secret, nor the secret's hash. */
export interface ServiceToken {
  readonly id: string;
  /** Unique in the store: the token's principal is `token:NAME`. */
  readonly name: string;
  /** None (null) for a token created with grants and no role: it may do only what its grants give. */
  readonly role: ServiceTokenRole | null;
  /** The lifetime it was created with; a renewal starts it again. */
  readonly lifetimeDays: number;
  readonly expiresAt: Date;
  readonly lastUsedAt: Date | null;
  /** The audit actor that created it. */
  readonly createdBy: string;
  readonly createdAt: Date;
}

/** A renewal: the new secret's hash, its expiry, and until when the secret before it still works. */
export interface ServiceTokenRenewal {
  readonly hash: string;
  readonly expiresAt: Date;
  readonly previousUntil: Date;
}

/**
 * Service tokens (SPEC §11), shared by every instance over one store. The store keeps the SHA-256 of each
 * secret (`hash`, computed by the caller), never the secret: a lookup is by that hash. At most two secrets
 * work per token: the current one until `expiresAt`, and, after a renewal, the one before it until its
 * overlap ends. A change is seen by the next `find` of every instance (none caches).
 */
export interface ServiceTokenStore {
  /** Adds `token`, its secret hashing to `hash`; false, changing nothing, when a token of that name exists. */
  create(token: ServiceToken, hash: string): TaskEither<DomainError, boolean>;
  /** Every token, oldest first, expired ones included. */
  list(): TaskEither<DomainError, readonly ServiceToken[]>;
  /** The token a secret of this hash proves at `now`, or undefined (unknown, revoked, expired, overlap over). */
  find(hash: string, now: Date): TaskEither<DomainError, ServiceToken | undefined>;
  /** Gives token `id` a new secret (any earlier previous secret stops); the token after it, or undefined when unknown. */
  renew(id: string, renewal: ServiceTokenRenewal): TaskEither<DomainError, ServiceToken | undefined>;
  /** Removes token `id` and both its secrets; false when unknown. */
  revoke(id: string): TaskEither<DomainError, boolean>;
  /** Records a use of token `id` at `at` (nothing when unknown). */
  touch(id: string, at: Date): TaskEither<DomainError, void>;
}
