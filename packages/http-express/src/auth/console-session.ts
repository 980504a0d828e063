import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { Clock } from "@sdwan-connections/core";
import type { AuthenticatedUser, Authenticator } from "./authenticator.js";
import type { Users } from "./users.js";

/** A console session lasts a working day at most; then the console asks for the password again. */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;

const PREFIX = "sdc_";
const BEARER = `Bearer ${PREFIX}`;

/** Whether an Authorization header carries a console session token (never an OpenID provider's token). */
export const isConsoleSession = (header: string | undefined): header is string => header?.startsWith(BEARER) === true;

export interface SessionTokens {
  /** A token proving `name` until `expiresAt`. */
  issue(name: string): { readonly token: string; readonly expiresAt: Date };
  /** The user name a token proves now, or undefined (malformed, forged, expired). */
  verify(token: string): string | undefined;
}

/**
 * The key that signs console sessions: derived from the master key when SDWAN_MASTER_KEY is set
 * (every instance sharing it accepts the others' sessions, and a restart keeps them), otherwise
 * random, so sessions end with the process. Never the master key itself (HKDF, its own label).
 */
export const sessionSigningKey = (masterKey: Buffer | undefined): Buffer =>
  masterKey === undefined
    ? randomBytes(32)
    : Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), "sdwan-connections/console-session/v1", 32));

/**
 * Stateless session tokens for the console (docs/interface.md §5): `sdc_<expiry ms>.<user, base64url>.<HMAC-SHA256>`.
 * The console keeps one in the tab's sessionStorage instead of the password, so a reload stays signed in.
 */
export const createSessionTokens = (key: Buffer, clock: Clock): SessionTokens => {
  const mac = (payload: string): Buffer => createHmac("sha256", key).update(payload).digest();
  return {
    issue: (name) => {
      const expiresAt = clock.now() + SESSION_TTL_MS;
      const payload = `${expiresAt}.${Buffer.from(name).toString("base64url")}`;
      return {
        token: `${PREFIX}${payload}.${mac(payload).toString("base64url")}`,
        expiresAt: new Date(expiresAt),
      };
    },
    verify: (token) => {
      const match = /^sdc_(\d{1,15})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (match === null) return undefined;
      const [, expiresAt, name, signature] = match as unknown as [string, string, string, string];
      const expected = mac(`${expiresAt}.${name}`);
      if (!timingSafeEqual(expected, Buffer.from(signature, "base64url"))) return undefined;
      return Number(expiresAt) > clock.now() ? Buffer.from(name, "base64url").toString() : undefined;
    },
  };
};

/**
 * The authenticator, also admitting `Authorization: Bearer sdc_…`: checked at once (an HMAC, no
 * bcrypt), for a user who still exists, with the role the users give now (a removed user's
 * sessions end with the next reload of the users).
 */
export const withConsoleSessions = (inner: Authenticator, initial: Users, sessions: SessionTokens): Authenticator => {
  let users = initial;
  const session = (header: string | undefined): AuthenticatedUser | undefined => {
    if (!isConsoleSession(header)) return undefined;
    const name = sessions.verify(header.slice("Bearer ".length));
    const entry = name === undefined ? undefined : users.get(name);
    return name === undefined || entry === undefined ? undefined : { name, role: entry.role };
  };
  return {
    cached: (header) => session(header) ?? inner.cached(header),
    authenticate: (header) => {
      const user = session(header);
      return user === undefined ? inner.authenticate(header) : Promise.resolve(user);
    },
    replaceUsers: (next) => {
      users = next;
      inner.replaceUsers(next);
    },
  };
};
