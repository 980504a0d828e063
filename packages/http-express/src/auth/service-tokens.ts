import { createHash, randomBytes, randomUUID } from "node:crypto";
import {
  AliasPatternCodec,
  decodeInput,
  GrantVerbCodec,
  isUuid,
  strictObject,
  type Clock,
  type DomainError,
  type ServiceToken,
  type ServiceTokenStore,
  timeText,
} from "@sdwan-connections/core";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import type { AuthenticatedUser } from "./authenticator.js";

const PREFIX = "sdw_";
const BEARER = `Bearer ${PREFIX}`;
// `sdw_` and 32 random bytes in base64url.
const SECRET = /^sdw_[A-Za-z0-9_-]{43}$/;
const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
/** How long a verified token is trusted without asking the store again: a revocation is seen within it (SPEC §11: 1 s). */
export const VERIFIED_TTL_MS = 500;
/** A token's last use is written at most this often. */
export const TOUCH_INTERVAL_MS = 60_000;
/** How long the secret before a renewal keeps working when the renewal does not say. */
export const DEFAULT_OVERLAP_HOURS = 24;

/** Whether an Authorization header carries a service token (never an OpenID provider's, never the console's). */
export const isServiceToken = (header: string | undefined): header is string => header?.startsWith(BEARER) === true;

const integerIn = (name: string, min: number, max: number) =>
  new t.Type<number, number, unknown>(
    name,
    (input): input is number => Number.isInteger(input) && (input as number) >= min && (input as number) <= max,
    (input, context) =>
      Number.isInteger(input) && (input as number) >= min && (input as number) <= max
        ? t.success(input as number)
        : t.failure(input, context, `must be a whole number from ${min} to ${max}`),
    (value) => value,
  );
const TokenName = new t.Type<string, string, unknown>(
  "TokenName",
  (input): input is string => typeof input === "string",
  (input, context) =>
    typeof input === "string" && /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(input)
      ? t.success(input)
      : t.failure(
          input,
          context,
          "must be 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit",
        ),
  (value) => value,
);
const tokenGrantProps = { pattern: AliasPatternCodec, verb: GrantVerbCodec };
const createProps = {
  name: TokenName,
  expiresInDays: integerIn("ExpiresInDays", 1, 365),
  role: t.keyof({ admin: null, viewer: null }),
  /** Grants to the token's principal, `token:NAME` (SPEC §11). */
  grants: t.array(strictObject("TokenGrant", tokenGrantProps, t.type(tokenGrantProps))),
};
const CreateTokenRequest = strictObject(
  "CreateTokenRequest",
  createProps,
  t.intersection([
    t.type({ name: createProps.name, expiresInDays: createProps.expiresInDays }),
    t.partial({ role: createProps.role, grants: createProps.grants }),
  ]),
);
/** What a token's creation grants its principal: `{pattern, verb}` each. */
export type TokenGrants = t.TypeOf<typeof createProps.grants>;
const renewProps = { overlapHours: integerIn("OverlapHours", 0, 720) };
const RenewTokenRequest = strictObject("RenewTokenRequest", renewProps, t.partial(renewProps));

/** A token as it is listed (never its secret). */
export interface ListedToken {
  readonly id: string;
  readonly name: string;
  readonly role: ServiceToken["role"];
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
  readonly createdBy: string;
  readonly createdAt: string;
}
/** A token with its secret: the answer of a creation or a renewal, the only ones that show it. */
export type IssuedToken = ListedToken & { readonly token: string };

const listed = ({ id, name, role, expiresAt, lastUsedAt, createdBy, createdAt }: ServiceToken): ListedToken => ({
  id,
  name,
  role,
  expiresAt: timeText(expiresAt),
  lastUsedAt: lastUsedAt ? timeText(lastUsedAt) : null,
  createdBy,
  createdAt: timeText(createdAt),
});

/** Why a service token admits no one: the detail never holds the token. */
export type ServiceTokenRefusal =
  | { readonly _tag: "InvalidToken"; readonly reason: string }
  | { readonly _tag: "Unavailable"; readonly error: DomainError };

export interface ServiceTokens {
  /** The principal a recently verified header proves, without waiting; undefined when it must be checked. */
  cached(header: string): AuthenticatedUser | undefined;
  /** The principal (`token:NAME`) an `Authorization: Bearer sdw_…` header proves now. */
  verify(header: string): TE.TaskEither<ServiceTokenRefusal, AuthenticatedUser>;
  /**
   * Decodes a creation's body and makes the token, with the grants its principal is to get (the caller adds
   * them); undefined when its name is taken. Without a role it is a viewer, unless grants are given: then it
   * has none, and may do only what they give.
   */
  create(
    body: unknown,
    createdBy: string,
  ): TE.TaskEither<DomainError, { readonly issued: IssuedToken; readonly grants: TokenGrants } | undefined>;
  list(): TE.TaskEither<DomainError, readonly ListedToken[]>;
  /** False when there is no such token. */
  revoke(id: string): TE.TaskEither<DomainError, boolean>;
  /** Decodes a renewal's body and gives the token a new secret; undefined when there is no such token. */
  renew(id: string, body: unknown): TE.TaskEither<DomainError, IssuedToken | undefined>;
}

const hashOf = (secret: string): string => createHash("sha256").update(secret).digest("hex");

/**
 * Service tokens (SPEC §11, docs/interface.md "Service tokens") over the store's ServiceTokenStore: a secret
 * is `sdw_` and 32 random bytes, shown once; the store keeps its SHA-256. A token is checked by one lookup of
 * that hash (no bcrypt: 256 random bits leave nothing to guess), then trusted for VERIFIED_TTL_MS at most, so
 * every instance stops admitting a revoked token within it. Its last use is written at most once a minute.
 */
export const createServiceTokens = ({
  store,
  clock,
}: {
  readonly store: ServiceTokenStore;
  readonly clock: Clock;
}): ServiceTokens => {
  // By hash: the principal, its token, and until when (this process's monotonic time) it is trusted.
  const verified = new Map<
    string,
    { readonly user: AuthenticatedUser; readonly token: ServiceToken; readonly until: number }
  >();
  const lastTouched = new Map<string, number>();

  const noteUse = (token: ServiceToken): void => {
    const now = clock.now();
    const last = lastTouched.get(token.id) ?? token.lastUsedAt?.getTime();
    if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
    lastTouched.set(token.id, now);
    // A lost write only leaves lastUsedAt older: never the request's concern.
    void store.touch(token.id, new Date(now))();
  };
  const forget = (id: string): void => {
    for (const [hash, entry] of verified) if (entry.token.id === id) verified.delete(hash);
  };
  const issue = (token: ServiceToken, secret: string): IssuedToken => ({ ...listed(token), token: secret });
  const newSecret = () => {
    const secret = `${PREFIX}${randomBytes(32).toString("base64url")}`;
    return { secret, hash: hashOf(secret) };
  };

  return {
    cached: (header) => {
      const entry = verified.get(hashOf(header.slice("Bearer ".length)));
      if (entry === undefined || performance.now() >= entry.until || clock.now() >= entry.token.expiresAt.getTime())
        return undefined;
      noteUse(entry.token);
      return entry.user;
    },
    verify: (header) => {
      const secret = header.slice("Bearer ".length);
      if (!SECRET.test(secret))
        return TE.left({
          _tag: "InvalidToken",
          reason: "it is not a service token (sdw_ and 43 base64url characters)",
        });
      const hash = hashOf(secret);
      return pipe(
        store.find(hash, new Date(clock.now())),
        TE.mapLeft((error): ServiceTokenRefusal => ({ _tag: "Unavailable", error })),
        TE.flatMap((token) =>
          token === undefined
            ? TE.left<ServiceTokenRefusal>({ _tag: "InvalidToken", reason: "unknown, revoked or expired" })
            : TE.right(token),
        ),
        TE.map((token) => {
          const user = { name: `token:${token.name}`, role: token.role ?? undefined };
          verified.set(hash, { user, token, until: performance.now() + VERIFIED_TTL_MS });
          noteUse(token);
          return user;
        }),
      );
    },
    create: (body, createdBy) =>
      pipe(
        TE.fromEither(decodeInput(CreateTokenRequest, "body")(body)),
        TE.flatMap(({ name, expiresInDays, role, grants = [] }) => {
          const now = clock.now();
          const token: ServiceToken = {
            id: randomUUID(),
            name,
            role: role ?? (grants.length > 0 ? null : "viewer"),
            lifetimeDays: expiresInDays,
            expiresAt: new Date(now + expiresInDays * DAY_MS),
            lastUsedAt: null,
            createdBy,
            createdAt: new Date(Math.floor(now / 1000) * 1000),
          };
          const { secret, hash } = newSecret();
          return TE.map((created: boolean) => (created ? { issued: issue(token, secret), grants } : undefined))(
            store.create(token, hash),
          );
        }),
      ),
    list: () => TE.map((tokens: readonly ServiceToken[]) => tokens.map(listed))(store.list()),
    revoke: (id) =>
      isUuid(id)
        ? TE.map((revoked: boolean) => {
            forget(id);
            return revoked;
          })(store.revoke(id))
        : TE.right(false),
    renew: (id, body) =>
      pipe(
        TE.fromEither(decodeInput(RenewTokenRequest, "body")(body ?? {})),
        TE.flatMap(({ overlapHours = DEFAULT_OVERLAP_HOURS }) => {
          if (!isUuid(id)) return TE.right(undefined);
          const now = clock.now();
          const { secret, hash } = newSecret();
          return pipe(
            store.list(),
            TE.flatMap((tokens) => {
              const before = tokens.find((token) => token.id === id);
              if (before === undefined) return TE.right(undefined);
              // The old secret works for the overlap, never past the expiry it had.
              const previousUntil = new Date(Math.min(now + overlapHours * HOUR_MS, before.expiresAt.getTime()));
              return store.renew(id, { hash, expiresAt: new Date(now + before.lifetimeDays * DAY_MS), previousUntil });
            }),
            TE.map((token) => {
              forget(id);
              return token === undefined ? undefined : issue(token, secret);
            }),
          );
        }),
      ),
  };
};
