import type { ServiceToken as ListedToken } from "../wire/admin.js";
import { changeById, type StoredChange } from "./stored-change.js";

/**
 * A service token as the REST API lists it (never its secret, nor the secret's hash; its name unique in the store,
 * its principal `token:NAME`; no role for one made with grants only), with the lifetime it was created with (a
 * renewal starts it again).
 */
export type ServiceToken = ListedToken & { readonly lifetimeDays: number };

/** A renewal: the new secret's hash, its expiry, and until when the secret before it still works. */
export interface ServiceTokenRenewal {
  readonly hash: string;
  readonly expiresAt: Date;
  readonly previousUntil: Date;
}

/** A token as a store keeps it: the SHA-256 of its current secret and, after a renewal, of the one before it. */
export interface StoredServiceToken extends ServiceToken {
  readonly hash: string;
  /** The secret before the last renewal, working until `until`. */
  readonly previous?: { readonly hash: string; readonly until: Date };
}

type Tokens = readonly StoredServiceToken[];

/** The token as it is listed: without its hashes. */
export const listedToken = ({ hash: _hash, previous: _previous, ...token }: StoredServiceToken): ServiceToken => token;

/** Each working secret's hash, current or previous, to its token: a lookup is one map read. */
export const tokensByHash = (tokens: Tokens): ReadonlyMap<string, StoredServiceToken> =>
  new Map(
    tokens.flatMap((token) => [
      [token.hash, token] as const,
      ...(token.previous === undefined ? [] : [[token.previous.hash, token] as const]),
    ]),
  );

/** The token a secret of `hash` proves at `now` (its current one until it expires, the previous one until its overlap ends). */
export const provenToken = (byHash: ReadonlyMap<string, StoredServiceToken>, hash: string, now: Date) => {
  const token = byHash.get(hash);
  const proved =
    token !== undefined &&
    (token.hash === hash ? now < token.expiresAt : token.previous !== undefined && now < token.previous.until);
  return proved ? listedToken(token) : undefined;
};

/** The service token store's rules over its tokens (oldest first), which each store binds to its medium. */
export const tokenRules = {
  /** Adds `token`, its secret hashing to `hash`, unless its name is taken. */
  create:
    (token: ServiceToken, hash: string) =>
    (tokens: Tokens): StoredChange<Tokens, boolean> =>
      tokens.some((one) => one.name === token.name)
        ? { answer: false }
        : { next: [...tokens, { ...token, hash }], answer: true },
  /** The new secret current, the one before it previous until `previousUntil` (an earlier previous one stops). */
  renew: (id: string, { hash, expiresAt, previousUntil }: ServiceTokenRenewal) =>
    changeById<StoredServiceToken, ServiceToken | undefined>(
      id,
      (token) => ({ ...token, hash, expiresAt, previous: { hash: token.hash, until: previousUntil } }),
      listedToken,
      undefined,
    ),
  /** Removes a token, both its hashes with it. */
  revoke:
    (id: string) =>
    (tokens: Tokens): StoredChange<Tokens, boolean> =>
      tokens.some((one) => one.id === id)
        ? { next: tokens.filter((one) => one.id !== id), answer: true }
        : { answer: false },
  /** Records a use. */
  touch: (id: string, at: Date) =>
    changeById<StoredServiceToken, void>(
      id,
      (token) => ({ ...token, lastUsedAt: at }),
      () => undefined,
      undefined,
    ),
};
