import type { Clock } from "@sdwan-connections/core";
import { parse } from "basic-auth";
import * as O from "fp-ts/lib/Option.js";
import bcrypt from "bcryptjs";
import { highestCost, cacheKey, type Role, type Users } from "./users.js";

export interface AuthenticatedUser {
  /** The audit actor: a local user's plain name, or the principal (`oidc:NAME`). */
  readonly name: string;
  /** None for a provider's user in no admin or viewer group: it reads nothing (SPEC §11, before grants). */
  readonly role: Role | undefined;
  /** The groups the OpenID provider's claim names (SDWAN_GROUPS_FILE adds its own when grants are decided). */
  readonly groups?: readonly string[];
}

export interface Authenticator {
  /** The user a recently verified `Authorization` header proves, without waiting; undefined when it must be checked. */
  cached(header: string | undefined): AuthenticatedUser | undefined;
  /** The user an `Authorization` header proves, or undefined (missing, malformed or wrong credentials). */
  authenticate(header: string | undefined): Promise<AuthenticatedUser | undefined>;
  /** Replaces the users (after their file changed) and forgets every verified credential. */
  replaceUsers(users: Users): void;
}

export interface AuthenticatorOptions {
  readonly clock: Clock;
  /** How long a verified name and password are trusted without a new bcrypt check. */
  readonly cacheTtlMs?: number;
}

// Compared against when the user does not exist, at the highest cost in use, so that case costs what a real check does.
const dummyHashes = new Map<number, string>();
const dummyHashFor = (users: Users): string => {
  const cost = highestCost([...users.values()].map((user) => user.hash));
  let hash = dummyHashes.get(cost);
  if (hash === undefined) {
    hash = bcrypt.hashSync("no such user", cost);
    dummyHashes.set(cost, hash);
  }
  return hash;
};

/** The name and password of a `Basic` header (parsed by jshttp's basic-auth); none when it is not one or names nobody. */
export const parseBasic = (header: string | undefined): O.Option<{ name: string; password: string }> => {
  const credentials = header === undefined ? undefined : parse(header);
  return credentials === undefined || credentials.name === ""
    ? O.none
    : O.some({ name: credentials.name, password: credentials.pass });
};

/**
 * Checks Basic credentials against the users. bcrypt is slow by design, so a
 * verified header is remembered for a short while, keyed by the SHA-256 of
 * the header (never the password itself); failures are never remembered.
 */
export const createAuthenticator = (initial: Users, options: AuthenticatorOptions): Authenticator => {
  const ttlMs = options.cacheTtlMs ?? 60_000;
  const maxEntries = 10_000;
  let users = initial;
  let dummyHash = dummyHashFor(initial);
  let verified = new Map<string, { readonly user: AuthenticatedUser; readonly expiresAt: number }>();

  const check = async (name: string, password: string): Promise<AuthenticatedUser | undefined> => {
    const entry = users.get(name);
    const ok = await bcrypt.compare(password, entry?.hash ?? dummyHash);
    return ok && entry !== undefined ? { name, role: entry.role } : undefined;
  };

  const cached = (header: string | undefined): AuthenticatedUser | undefined => {
    if (header === undefined || verified.size === 0) return undefined;
    const entry = verified.get(cacheKey(header));
    return entry !== undefined && entry.expiresAt > options.clock.now() ? entry.user : undefined;
  };

  const authenticate = async (header: string | undefined): Promise<AuthenticatedUser | undefined> => {
    if (header === undefined) return undefined;
    const hit = cached(header);
    if (hit !== undefined) return hit;
    const key = cacheKey(header);
    const now = options.clock.now();
    const parsed = parseBasic(header);
    if (O.isNone(parsed)) return undefined;
    const credentials = parsed.value;
    const generation = users;
    const user = await check(credentials.name, credentials.password);
    // Users replaced during the check: the answer may be about the old file, so check again against the new one.
    if (generation !== users) return authenticate(header);
    if (user !== undefined) {
      if (verified.size >= maxEntries) verified = new Map();
      verified.set(key, { user, expiresAt: now + ttlMs });
    }
    return user;
  };

  return {
    cached,
    authenticate,
    replaceUsers: (next) => {
      users = next;
      dummyHash = dummyHashFor(next);
      verified = new Map();
    },
  };
};
