import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { DomainError } from "../domain/errors.js";
import type { ServiceToken, ServiceTokenRenewal } from "../domain/service-token.js";

export type { ServiceToken, ServiceTokenRenewal } from "../domain/service-token.js";

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
