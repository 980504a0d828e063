import { createHash, randomBytes, randomUUID } from "node:crypto";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import * as t from "io-ts";
import type { Actor } from "../domain/audit.js";
import { IntegerCodec, isUuid } from "../domain/codecs.js";
import { decodeInput, strictObject } from "../domain/decode.js";
import type { DomainError } from "../domain/errors.js";
import { AliasPatternCodec, GrantVerbCodec, type Grant } from "../domain/grants.js";
import type { IssuedToken, ServiceToken as ListedToken } from "../wire/admin.js";
import type { Clock } from "../ports/clock.js";
import type { ServiceToken, ServiceTokenStore } from "../ports/service-token-store.js";
import type { AuditedToken, TokenChange } from "./audit-trail.js";
import type { GrantService } from "./grants.js";

const PREFIX = "sdw_";
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

/** Whether a bearer credential is a service token's secret (never an OpenID provider's token, never the console's). */
export const isServiceTokenSecret = (credential: string): boolean => credential.startsWith(PREFIX);

const integerIn = (min: number, max: number) =>
  t.refinement(IntegerCodec, (value) => value >= min && value <= max, `a whole number from ${min} to ${max}`);
export const TOKEN_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const TokenName = t.refinement(
  t.string,
  (name) => TOKEN_NAME_PATTERN.test(name),
  "1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit",
);
const tokenGrantProps = { pattern: AliasPatternCodec, verb: GrantVerbCodec };
const createProps = {
  name: TokenName,
  expiresInDays: integerIn(1, 365),
  role: t.keyof({ admin: null, viewer: null }),
  /** Grants to the token's principal, `token:NAME` (SPEC §11). */
  grants: t.array(strictObject("TokenGrant", tokenGrantProps, t.type(tokenGrantProps))),
};
/** POST /tokens's body (the OpenAPI document's too). */
export const CreateTokenRequest = strictObject(
  "CreateServiceTokenRequest",
  createProps,
  t.intersection([
    t.type({ name: createProps.name, expiresInDays: createProps.expiresInDays }),
    t.partial({ role: createProps.role, grants: createProps.grants }),
  ]),
);
/** What a token's creation grants its principal: `{pattern, verb}` each. */
export type TokenGrants = t.TypeOf<typeof createProps.grants>;
const renewProps = { overlapHours: integerIn(0, 720) };
/** POST /tokens/{id}/renew's body. */
export const RenewTokenRequest = strictObject("RenewServiceTokenRequest", renewProps, t.partial(renewProps));

// A token as it is listed (never its secret), and with its secret (the answer of a creation or a renewal): the wire's.
export type { IssuedToken, ListedToken };

const listed = ({ id, name, role, expiresAt, lastUsedAt, createdBy, createdAt }: ServiceToken): ListedToken => ({
  id,
  name,
  role,
  expiresAt,
  lastUsedAt,
  createdBy,
  createdAt,
});

/** Why a service token admits no one: the detail never holds the token. */
export type ServiceTokenRefusal =
  | { readonly _tag: "InvalidToken"; readonly reason: string }
  | { readonly _tag: "Unavailable"; readonly error: DomainError };

/** Who a service token proves: its principal `token:NAME`, with its role (none: only what its grants give). */
export interface TokenPrincipal {
  readonly name: string;
  readonly role: "admin" | "viewer" | undefined;
}

/** Service tokens (SPEC §11): their whole lifecycle, each change audited as `by`'s (never a secret). */
export interface ServiceTokens {
  /** The principal a recently verified secret proves, without waiting; undefined when it must be checked. */
  cached(secret: string): TokenPrincipal | undefined;
  /** The principal (`token:NAME`) a secret (`sdw_…`) proves now. */
  verify(secret: string): TE.TaskEither<ServiceTokenRefusal, TokenPrincipal>;
  /**
   * Decodes a creation's body and makes the token with the grants its principal is to get, audited, then each
   * grant added as `by`'s change: undefined when its name is taken. Without a role it is a viewer, unless grants
   * are given: then it has none, and may do only what they give.
   */
  create(body: unknown, by: Actor): TE.TaskEither<DomainError, IssuedToken | undefined>;
  list(): TE.TaskEither<DomainError, readonly ListedToken[]>;
  /** Revokes token `id`, audited, and removes its grants (a later token of its name starts with none); false when there is none. */
  revoke(id: string, by: Actor): TE.TaskEither<DomainError, boolean>;
  /** Decodes a renewal's body and gives the token a new secret, audited; undefined when there is no such token. */
  renew(id: string, body: unknown, by: Actor): TE.TaskEither<DomainError, IssuedToken | undefined>;
}

export interface ServiceTokensOptions {
  readonly store: ServiceTokenStore;
  readonly clock: Clock;
  readonly grants: Pick<GrantService, "add" | "list" | "remove">;
  /** Records a token's change in the audit trail, before the change's answer. */
  readonly audited: (by: Actor | undefined, action: TokenChange, token: AuditedToken) => Promise<void>;
}

const hashOf = (secret: string): string => createHash("sha256").update(secret).digest("hex");

/**
 * Service tokens (SPEC §11, docs/interface.md "Service tokens") over the store's ServiceTokenStore: a secret
 * is `sdw_` and 32 random bytes, shown once; the store keeps its SHA-256. A token is checked by one lookup of
 * that hash (no bcrypt: 256 random bits leave nothing to guess), then trusted for VERIFIED_TTL_MS at most, so
 * every instance stops admitting a revoked token within it. Its last use is written at most once a minute.
 */
export const createServiceTokens = ({ store, clock, grants, audited }: ServiceTokensOptions): ServiceTokens => {
  // By hash: the principal, its token, and until when (this process's monotonic time) it is trusted.
  const verified = new Map<
    string,
    { readonly principal: TokenPrincipal; readonly token: ServiceToken; readonly until: number }
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
  const list = () => TE.map((tokens: readonly ServiceToken[]) => tokens.map(listed))(store.list());

  return {
    cached: (secret) => {
      const entry = verified.get(hashOf(secret));
      if (entry === undefined || performance.now() >= entry.until || clock.now() >= entry.token.expiresAt.getTime())
        return undefined;
      noteUse(entry.token);
      return entry.principal;
    },
    verify: (secret) => {
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
          const principal = { name: `token:${token.name}`, role: token.role ?? undefined };
          verified.set(hash, { principal, token, until: performance.now() + VERIFIED_TTL_MS });
          noteUse(token);
          return principal;
        }),
      );
    },
    create: (body, by) =>
      pipe(
        TE.fromEither(decodeInput(CreateTokenRequest, "body")(body)),
        TE.flatMap(({ name, expiresInDays, role, grants: granted = [] }) => {
          const now = clock.now();
          const token: ServiceToken = {
            id: randomUUID(),
            name,
            role: role ?? (granted.length > 0 ? null : "viewer"),
            lifetimeDays: expiresInDays,
            expiresAt: new Date(now + expiresInDays * DAY_MS),
            lastUsedAt: null,
            createdBy: by.name,
            createdAt: new Date(Math.floor(now / 1000) * 1000),
          };
          const { secret, hash } = newSecret();
          return pipe(
            store.create(token, hash),
            TE.map((created) => (created ? issue(token, secret) : undefined)),
            // Audited, then its grants, each audited as the creator's change (one saying the same as an existing
            // grant is there already).
            TE.tap((issued) =>
              issued === undefined
                ? TE.right(undefined)
                : pipe(
                    TE.fromTask(() => audited(by, "token-create", issued)),
                    TE.flatMap(() =>
                      TE.traverseSeqArray(({ pattern, verb }: TokenGrants[number]) =>
                        grants.add({ subject: `token:${name}`, pattern, verb }, by),
                      )(granted),
                    ),
                  ),
            ),
          );
        }),
      ),
    list,
    revoke: (id, by) =>
      !isUuid(id)
        ? TE.right(false)
        : pipe(
            TE.Do,
            TE.bind("named", () => TE.map((all: readonly ListedToken[]) => all.find((one) => one.id === id))(list())),
            TE.bind("revoked", () => store.revoke(id)),
            TE.tap(() => TE.right(forget(id))),
            // Audited, and its grants go with it: a later token of the same name starts with none.
            TE.tap(({ named, revoked }) =>
              named === undefined || !revoked
                ? TE.right(undefined)
                : pipe(
                    TE.fromTask(() => audited(by, "token-revoke", named)),
                    TE.flatMap(() => grants.list()),
                    TE.flatMap(
                      TE.traverseSeqArray((grant: Grant) =>
                        grant.subject === `token:${named.name}` ? grants.remove(grant.id, by) : TE.right(undefined),
                      ),
                    ),
                  ),
            ),
            TE.map(({ revoked }) => revoked),
          ),
    renew: (id, body, by) =>
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
            TE.tap((issued) =>
              issued === undefined ? TE.right(undefined) : TE.fromTask(() => audited(by, "token-renew", issued)),
            ),
          );
        }),
      ),
  };
};
