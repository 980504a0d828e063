import type { Logger, OidcConfig, OutboundFetch } from "@sdwan-connections/composition";
import type { Clock } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  jwksCache,
  jwtVerify,
  type ExportedJWKSCache,
  type JWTPayload,
  type JWTVerifyGetKey,
  type RemoteJWKSet,
} from "jose";
import type { AuthenticatedUser } from "./authenticator.js";
import { cacheKey } from "./users.js";

/** Why a bearer token is not admitted: the token itself (401), or the provider whose keys would check it (503). */
export type BearerRefusal =
  | { readonly _tag: "InvalidToken"; readonly reason: string }
  | { readonly _tag: "ProviderUnavailable"; readonly retryAfterSeconds: number };

export interface BearerAuthenticator {
  /** The user a recently verified token proves, without waiting; undefined when it must be checked. */
  cached(token: string): AuthenticatedUser | undefined;
  /** Checks a token against the provider's keys and SPEC §11's rules, and maps its claims to a user. */
  verify(token: string): TaskEither<BearerRefusal, AuthenticatedUser>;
}

export interface BearerOptions {
  readonly clock: Clock;
  readonly logger: Logger;
  /** The provider's documents are read through outbound-http's client (the fence, the CAs), as every outbound request. */
  readonly fetch: OutboundFetch;
}

/** Signatures by a key pair only: never `none`, never a shared secret (HS*), which the public JWKS would hand to anyone. */
const ASYMMETRIC_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];
const CLOCK_TOLERANCE_S = 30;
const FETCH_TIMEOUT_MS = 5_000;
// After a fetch of the keys, how long a token naming an unknown key is refused without fetching them again (jose's cooldown).
const KEY_REFETCH_COOLDOWN_MS = 30_000;
/** After the provider failed to answer, tokens that need its keys are answered 503 this long without asking it again. */
const RETRY_AFTER_MS = 5_000;
/** Keys older than this are fetched again in the background (a key the provider withdrew stops working); requests never wait for it. */
const KEYS_REFRESH_MS = 10 * 60_000;
/** A verified token is trusted without a new signature check this long at most (and never past its expiry). */
const VERIFIED_TTL_MS = 60_000;
const MAX_VERIFIED = 10_000;

/** The token of an `Authorization: Bearer` header (RFC 6750 §2.1), or undefined. */
export const parseBearer = (header: string | undefined): string | undefined =>
  /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header ?? "")?.[1];

const Discovery = t.type({ issuer: t.string, jwks_uri: t.string });

/** A claim by its name, or else by a dotted path into nested claims (`realm_access.roles`); a name with dots (a URL) is read as it is first. */
export const claimAt = (claims: JWTPayload, path: string): unknown =>
  path in claims
    ? claims[path]
    : path
        .split(".")
        .reduce<unknown>(
          (value, key) =>
            typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined,
          claims,
        );

/**
 * The user a verified token's claims name: `oidc:NAME` (the username claim, else `sub`), admin when one of its
 * groups is an admin group, else viewer when one is a viewer group, else no role (it may do what its grants give).
 */
export const userOfClaims = (
  claims: JWTPayload,
  oidc: Pick<OidcConfig, "usernameClaim" | "groupsClaim" | "adminGroups" | "viewerGroups">,
): E.Either<string, AuthenticatedUser> => {
  const named = claimAt(claims, oidc.usernameClaim);
  const name = typeof named === "string" && named !== "" ? named : claims.sub;
  if (name === undefined || name === "") return E.left(`it names no user (neither ${oidc.usernameClaim} nor sub)`);
  const listed = claimAt(claims, oidc.groupsClaim);
  const groups =
    typeof listed === "string"
      ? [listed]
      : Array.isArray(listed)
        ? listed.filter((group): group is string => typeof group === "string")
        : [];
  const role = groups.some((group) => oidc.adminGroups.includes(group))
    ? "admin"
    : groups.some((group) => oidc.viewerGroups.includes(group))
      ? "viewer"
      : undefined;
  return E.right({ name: `oidc:${name}`, role, groups });
};

const CRITICAL_EXTENSION = "its crit header names an extension this service does not understand";

/** What the detail of a 401 says about a token jose refused: which check failed, never the token. */
const reasonOf = (error: unknown): string => {
  if (error instanceof errors.JWTExpired) return "it has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "aud") return "it is not for this service (audience)";
    if (error.claim === "iss") return "it was issued by another issuer";
    if (error.claim === "nbf") return "it is not valid yet (nbf)";
    return error.reason === "missing" ? `it has no ${error.claim} claim` : `its ${error.claim} claim is not valid`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return "its signature does not verify";
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
    return "its signature is by no key the provider publishes";
  if (error instanceof errors.JOSEAlgNotAllowed)
    return "its algorithm is not allowed (asymmetric only: never none or HS*)";
  if (error instanceof errors.JOSENotSupported) return "it needs a JOSE feature this service does not support";
  return "it is not a well-formed JWT";
};

/** Failures of the key set that are about the token, not the provider. */
const TOKEN_FAULTS = new Set([
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
  errors.JOSENotSupported.code,
  errors.JOSEAlgNotAllowed.code,
]);

/** The provider's keys cannot be had now: thrown through jose's key lookup to tell a 503 from a 401. */
class ProviderUnreachable extends Error {}

const whyUnreachable = (error: unknown): string =>
  (error as { code?: string }).code ?? (error instanceof Error ? error.message : "unknown failure");

/**
 * Bearer JWTs from the OpenID provider of `oidc` (SPEC §11). Its discovery document and keys are read on first
 * need (and at once, to have them before the first token), kept, fetched again when a token names an unknown key
 * (at most once per cooldown, so forged `kid`s cost one fetch) and refreshed in the background. Whatever can be
 * refused from the token alone (its form, algorithm and issuer) is, before any key is looked up; a token that
 * passes is remembered for a minute, like verified Basic credentials.
 */
export const createBearerAuthenticator = (
  oidc: OidcConfig,
  { clock, logger, fetch }: BearerOptions,
): BearerAuthenticator => {
  let keys: Promise<RemoteJWKSet> | undefined;
  const fetched: ExportedJWKSCache | Record<string, never> = {};
  let unavailableUntil = 0;
  let verified = new Map<string, { readonly user: AuthenticatedUser; readonly expiresAt: number }>();

  const warn = (error: unknown): void =>
    logger.warn(
      { issuer: oidc.issuer, problem: whyUnreachable(error) },
      "OpenID provider unreachable: bearer tokens needing keys not cached are answered 503",
    );
  const unreachable = (error: unknown): ProviderUnreachable => {
    unavailableUntil = clock.now() + RETRY_AFTER_MS;
    warn(error);
    return new ProviderUnreachable();
  };

  const discover = async (): Promise<RemoteJWKSet> => {
    const url = `${oidc.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
    const response = await fetch(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
    if (response.status !== 200) throw new Error(`discovery answered ${response.status}`);
    const document = Discovery.decode(await response.json());
    if (E.isLeft(document)) throw new Error("discovery document without issuer and jwks_uri");
    // OpenID Connect Discovery §4.3: the document must be the issuer's own.
    if (document.right.issuer !== oidc.issuer) throw new Error("discovery document of another issuer");
    const jwksUri = new URL(document.right.jwks_uri);
    if (jwksUri.protocol !== "https:" && jwksUri.protocol !== new URL(oidc.issuer).protocol)
      throw new Error("jwks_uri is not https");
    // Never stale by age (cacheMaxAge): an old key set keeps checking tokens while the provider is down, refreshed below.
    return createRemoteJWKSet(jwksUri, {
      cooldownDuration: KEY_REFETCH_COOLDOWN_MS,
      timeoutDuration: FETCH_TIMEOUT_MS,
      cacheMaxAge: Infinity,
      [jwksCache]: fetched,
      [customFetch]: fetch,
    });
  };

  const keySet = (): Promise<RemoteJWKSet> =>
    (keys ??= discover().catch((error: unknown) => {
      keys = undefined;
      throw unreachable(error);
    }));
  void keySet().catch(() => undefined);

  const getKey: JWTVerifyGetKey = async (header, token) => {
    // Shortly after a failure, no key cached: the provider is not asked again yet.
    if (clock.now() < unavailableUntil && !("uat" in fetched)) throw new ProviderUnreachable();
    const set = await keySet();
    try {
      const key = await set(header, token);
      // A failed refresh keeps the keys it had: the provider being down stops nobody whose key is cached.
      if ("uat" in fetched && clock.now() - fetched.uat > KEYS_REFRESH_MS && !set.reloading)
        void set.reload().catch(warn);
      return key;
    } catch (error) {
      throw error instanceof errors.JOSEError && TOKEN_FAULTS.has(error.code) ? error : unreachable(error);
    }
  };

  const cached = (token: string): AuthenticatedUser | undefined => {
    if (verified.size === 0) return undefined;
    const entry = verified.get(cacheKey(token));
    return entry !== undefined && entry.expiresAt > clock.now() ? entry.user : undefined;
  };

  const invalid = (reason: string): E.Either<BearerRefusal, never> => E.left({ _tag: "InvalidToken", reason });

  const verify =
    (token: string): TaskEither<BearerRefusal, AuthenticatedUser> =>
    async () => {
      const hit = cached(token);
      if (hit !== undefined) return E.right(hit);
      let claims: JWTPayload;
      try {
        const header = decodeProtectedHeader(token);
        if (!ASYMMETRIC_ALGORITHMS.includes(header.alg ?? "none"))
          return invalid(reasonOf(new errors.JOSEAlgNotAllowed()));
        // This service understands no extension: a token that makes one critical is refused, saying so (issue 36).
        if (header.crit !== undefined) return invalid(CRITICAL_EXTENSION);
        claims = decodeJwt(token);
      } catch {
        return invalid("it is not a well-formed JWT");
      }
      // Another issuer's token is refused before its key is looked for: no fetch for it.
      if (claims.iss !== oidc.issuer) return invalid("it was issued by another issuer");
      const now = clock.now();
      try {
        const { payload } = await jwtVerify(token, getKey, {
          issuer: oidc.issuer,
          audience: oidc.audience,
          algorithms: ASYMMETRIC_ALGORITHMS,
          clockTolerance: CLOCK_TOLERANCE_S,
          requiredClaims: ["exp"],
          currentDate: new Date(now),
        });
        const user = userOfClaims(payload, oidc);
        if (E.isLeft(user)) return invalid(user.left);
        if (verified.size >= MAX_VERIFIED) verified = new Map();
        verified.set(cacheKey(token), {
          user: user.right,
          expiresAt: Math.min(now + VERIFIED_TTL_MS, ((payload.exp ?? 0) + CLOCK_TOLERANCE_S) * 1000),
        });
        return user;
      } catch (error) {
        return error instanceof ProviderUnreachable
          ? E.left({
              _tag: "ProviderUnavailable",
              retryAfterSeconds: Math.max(1, Math.ceil((unavailableUntil - clock.now()) / 1000)),
            })
          : invalid(reasonOf(error));
      }
    };

  return { cached, verify };
};
