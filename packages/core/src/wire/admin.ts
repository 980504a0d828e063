import * as t from "io-ts";
import { IsoTimeCodec } from "../domain/codecs.js";
import { oneOf } from "../domain/decode.js";
import { AliasPatternCodec, GrantCodec, GrantVerbCodec, ROLES } from "../domain/grants.js";

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

export const GrantVerb = GrantVerbCodec;
export type GrantVerb = t.TypeOf<typeof GrantVerb>;

/** SPEC §5's roles; none (null) for a principal that may do only what its grants give. */
export const Role = oneOf(ROLES, "Role");
export type Role = t.TypeOf<typeof Role>;

/** A grant (SPEC §11, `GET /grants`): the domain's codec. */
export const Grant = GrantCodec;
export type Grant = t.TypeOf<typeof Grant>;

/**
 * Who is signed in (`GET /me`) and their role; with `?grants=true`, the grants to the principal or one of its groups,
 * as `{pattern, verb}`: what it may do beside its role.
 */
export const Me = t.intersection(
  [
    t.type({ user: t.string, role: nullable(Role) }),
    t.partial({
      grants: t.readonlyArray(t.type({ pattern: AliasPatternCodec, verb: GrantVerbCodec }, "PatternGrant")),
    }),
  ],
  "Me",
);
export type Me = t.TypeOf<typeof Me>;

/** A console session (`GET /session`): who signed in, and the token the console keeps in place of the password. */
export const Session = t.type(
  { user: t.string, role: nullable(Role), token: t.string, expiresAt: IsoTimeCodec },
  "Session",
);
export type Session = t.TypeOf<typeof Session>;

/** How the console may sign in (`GET /auth/config`): the OpenID provider and its public client, or null for Basic only. */
export const AuthConfig = t.type(
  {
    oidc: nullable(
      t.type({ issuer: t.string, clientId: t.string, scopes: t.readonlyArray(t.string) }, "OidcClientConfig"),
    ),
  },
  "AuthConfig",
);
export type AuthConfig = t.TypeOf<typeof AuthConfig>;

/** A service token as `GET /tokens` lists it (SPEC §11): never its secret. */
export const ServiceToken = t.type(
  {
    id: t.string,
    name: t.string,
    role: nullable(Role),
    expiresAt: IsoTimeCodec,
    lastUsedAt: nullable(IsoTimeCodec),
    createdBy: t.string,
    createdAt: IsoTimeCodec,
  },
  "ServiceToken",
);
export type ServiceToken = t.TypeOf<typeof ServiceToken>;
/** The answer of a creation or a renewal, the only ones with the secret (`sdw_…`). */
export const IssuedToken = t.intersection([ServiceToken, t.type({ token: t.string })], "IssuedToken");
export type IssuedToken = t.TypeOf<typeof IssuedToken>;

/** `/healthz` and `/readyz` (beside the API, no credentials): `ok`; `ready` or `not ready`. */
export const OperationStatus = t.type({ status: t.string }, "OperationStatus");
