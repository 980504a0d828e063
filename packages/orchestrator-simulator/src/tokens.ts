import { randomBytes, randomUUID } from "node:crypto";
import type { Dataset } from "./dataset.js";
import { INVALID_PARAMS, SERVER_ERROR } from "./methods.js";

/** Who a token belongs to: a partner (enterprise proxy) or an enterprise (a customer). */
export type TokenOwner =
  | { readonly kind: "partner"; readonly enterpriseProxyId: number }
  | { readonly kind: "enterprise"; readonly enterpriseId: number };

/** `created` by createApiToken, `downloaded` once its key was handed out (a data file's keys are), `revoked`. */
export type TokenState = "created" | "downloaded" | "revoked";

/** One API token as the simulator holds it; `SimulatorToken` is what tests see of it. */
interface Token {
  readonly id: number;
  readonly tokenUuid: string;
  readonly name: string;
  readonly owner: TokenOwner;
  readonly createdForEnterpriseUserId: number;
  readonly created: Date;
  readonly expiration: Date;
  /** The key, once downloaded. */
  key: string | undefined;
  state: TokenState;
  downloaded: Date | undefined;
  readonly readsTokens: boolean;
  readonly renews: boolean;
  /** The token a refresh made this one of. */
  readonly refreshedFrom: number | undefined;
  firstUsedAt: Date | undefined;
  lastUsedAt: Date | undefined;
  uses: number;
}

/** A token, as tests read it (`simulator.tokens()`): a copy, its key included (tests compare it; never log it). */
export type SimulatorToken = Readonly<Token>;

/** The longest lifetime createApiToken accepts: 12 months (the Swagger's "less than or equal to 12 months"). */
export const MAX_TOKEN_LIFETIME_MS = 365 * 24 * 3600 * 1000;

/** Why a call is not answered normally: the JSON-RPC code and message of the `error` body, at HTTP 400. */
export interface TokenRefusal {
  readonly code: number;
  readonly message: string;
}

export const PRIVILEGE: TokenRefusal = { code: SERVER_ERROR, message: "privileges check failed" };
const invalid = (message: string): TokenRefusal => ({ code: INVALID_PARAMS, message });

const jwtPart = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
/** A key as the orchestrator hands one out: a JWT with the token's uuid and expiry (signed with random bytes: no one checks). */
const jwtOf = (token: Token, now: number): string =>
  `${jwtPart({ alg: "HS256", typ: "JWT" })}.${jwtPart({
    tokenUuid: token.tokenUuid,
    iat: Math.floor(now / 1000),
    exp: Math.floor(token.expiration.getTime() / 1000),
  })}.${randomBytes(32).toString("base64url")}`;

/**
 * `data` with every key that has an `apiTokens` record made a JWT, as orchestrators hand keys out: its record's
 * `tokenUuid` and `exp` (what a client reads to find its own token), and a fixed signature, so the same data makes
 * the same keys. `keyOf` tells a key's new form.
 */
export const withJwtKeys = (data: Dataset): { readonly data: Dataset; keyOf(key: string): string } => {
  const keys = new Map(
    (data.apiTokens ?? []).map((record) => [
      record.key,
      `${jwtPart({ alg: "HS256", typ: "JWT" })}.${jwtPart({
        tokenUuid: record.tokenUuid,
        exp: Math.floor(Date.parse(record.expiration) / 1000),
      })}.c2ltdWxhdG9y`,
    ]),
  );
  const keyOf = (key: string) => keys.get(key) ?? key;
  return {
    data: {
      partners: data.partners.map((partner) => ({ ...partner, keys: partner.keys.map(keyOf) })),
      customerKeys: data.customerKeys.map((customer) => ({ ...customer, key: keyOf(customer.key) })),
      apiTokens: (data.apiTokens ?? []).map((record) => ({ ...record, key: keyOf(record.key) })),
    },
    keyOf,
  };
};

/** The claims of a key that is a JWT, if it is one (a data file's keys may be). */
const claimsOf = (key: string): { tokenUuid?: unknown; exp?: unknown } => {
  const payload = key.split(".")[1];
  if (key.split(".").length !== 3 || payload === undefined) return {};
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    return typeof claims === "object" && claims !== null ? claims : {};
  } catch {
    return {};
  }
};

const sameOwner = (a: TokenOwner, b: TokenOwner) =>
  a.kind === b.kind &&
  (a.kind === "partner"
    ? a.enterpriseProxyId === (b as typeof a).enterpriseProxyId
    : a.enterpriseId === (b as typeof a).enterpriseId);

const isInteger = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value);

export interface TokenOptions {
  /** The simulator's clock (ms since the epoch): expiries and use times. */
  readonly now: () => number;
  /** Whether a refresh revokes the token it was asked for; by default that one works on until its own expiry. */
  readonly refreshRevokesPredecessor: boolean;
}

/**
 * The simulator's API tokens: one behind every key of the data (its `apiTokens` record, else one made up, with
 * the key's own `exp` and `tokenUuid` when it is a JWT), and those the token methods make.
 */
export const createTokens = (data: Dataset, options: TokenOptions) => {
  const { now } = options;
  const tokens: Token[] = [];
  const byKey = new Map<string, Token>();
  const recordOf = new Map((data.apiTokens ?? []).map((record) => [record.key, record]));
  const startedAt = now();

  const add = (token: Omit<Token, "id" | "firstUsedAt" | "lastUsedAt" | "uses">): Token => {
    const made: Token = { ...token, id: tokens.length + 1, firstUsedAt: undefined, lastUsedAt: undefined, uses: 0 };
    tokens.push(made);
    if (made.key !== undefined) byKey.set(made.key, made);
    return made;
  };
  const fromData = (key: string, owner: TokenOwner) => {
    const record = recordOf.get(key);
    const claims = claimsOf(key);
    const exp = isInteger(claims.exp) ? claims.exp * 1000 : undefined;
    add({
      tokenUuid: record?.tokenUuid ?? (typeof claims.tokenUuid === "string" ? claims.tokenUuid : randomUUID()),
      name: `token ${tokens.length + 1}`,
      owner,
      createdForEnterpriseUserId: record?.enterpriseUserId ?? 5000 + tokens.length + 1,
      created: new Date(startedAt),
      expiration: new Date(record?.expiration ?? exp ?? startedAt + MAX_TOKEN_LIFETIME_MS),
      key,
      state: "downloaded",
      downloaded: new Date(startedAt),
      readsTokens: record?.readsTokens ?? true,
      renews: record?.renews ?? true,
      refreshedFrom: undefined,
    });
  };
  for (const partner of data.partners)
    for (const key of partner.keys) fromData(key, { kind: "partner", enterpriseProxyId: partner.enterpriseProxyId });
  for (const { key, enterpriseId } of data.customerKeys) fromData(key, { kind: "enterprise", enterpriseId });

  const usable = (token: Token | undefined): token is Token =>
    token !== undefined && token.state === "downloaded" && token.expiration.getTime() > now();

  /** A new token like `from` (its owner, user and rights), for `lifetimeMs`. */
  const issue = (from: Token, name: string, lifetimeMs: number, refreshedFrom?: number): Token =>
    add({
      tokenUuid: randomUUID(),
      name,
      owner: from.owner,
      createdForEnterpriseUserId: from.createdForEnterpriseUserId,
      created: new Date(now()),
      expiration: new Date(now() + lifetimeMs),
      key: undefined,
      state: "created",
      downloaded: undefined,
      readsTokens: from.readsTokens,
      renews: from.renews,
      refreshedFrom,
    });
  const download = (token: Token): string => {
    const key = jwtOf(token, now());
    token.key = key;
    token.state = "downloaded";
    token.downloaded = new Date(now());
    byKey.set(key, token);
    return key;
  };
  /** The caller's own token by id, if it owns it. */
  const ownTokenOf = (caller: Token, id: unknown): Token | TokenRefusal => {
    const token = isInteger(id) ? tokens[id - 1] : undefined;
    return token !== undefined && sameOwner(token.owner, caller.owner) ? token : invalid("No such API token");
  };

  return {
    /** The token behind `key` if it may call now (downloaded, not revoked, not expired), its use recorded. */
    use: (key: string | undefined): Token | undefined => {
      const token = key === undefined ? undefined : byKey.get(key);
      if (!usable(token)) return undefined;
      const at = new Date(now());
      token.firstUsedAt ??= at;
      token.lastUsedAt = at;
      token.uses += 1;
      return token;
    },
    /** `getApiTokens`' answer: the owner's tokens (Swagger `api_token`), revoked ones included, as orchestrators list them. */
    listOf: (owner: TokenOwner) =>
      tokens
        .filter((token) => sameOwner(token.owner, owner))
        .map((token) => ({
          id: token.id,
          tokenUuid: token.tokenUuid,
          name: token.name,
          description: "",
          created: token.created.toISOString(),
          modified: (token.downloaded ?? token.created).toISOString(),
          ...(token.downloaded === undefined ? {} : { downloaded: token.downloaded.toISOString() }),
          expiration: token.expiration.toISOString(),
          isRevoked: token.state === "revoked",
          state: token.state === "revoked" ? "REVOKED" : token.state === "created" ? "PENDING" : "ENABLED",
          createdForEnterpriseUserId: token.createdForEnterpriseUserId,
          ...(owner.kind === "partner"
            ? { enterpriseProxyId: owner.enterpriseProxyId }
            : { enterpriseId: owner.enterpriseId }),
        })),
    /** enterprise/refreshApiToken: a new token of the same user for 12 months, handed out at once (a customer key's right). */
    refresh: (caller: Token, params: Record<string, unknown>): { token: string } | TokenRefusal => {
      if (caller.owner.kind !== "enterprise" || !caller.renews) return PRIVILEGE;
      const old = typeof params["apiToken"] === "string" ? byKey.get(params["apiToken"]) : undefined;
      if (!usable(old) || !sameOwner(old.owner, caller.owner)) return invalid("apiToken is not a valid token");
      const key = download(issue(old, old.name, MAX_TOKEN_LIFETIME_MS, old.id));
      if (options.refreshRevokesPredecessor) old.state = "revoked";
      return { token: key };
    },
    /** enterpriseProxy/createApiToken: a token for one of the partner's users, to be downloaded once. */
    create: (caller: Token, params: Record<string, unknown>): { id: number; rows: number } | TokenRefusal => {
      if (caller.owner.kind !== "partner" || !caller.renews) return PRIVILEGE;
      const { enterpriseUserId, name, lifetimeMs } = params;
      const user = tokens.find(
        (token) => sameOwner(token.owner, caller.owner) && token.createdForEnterpriseUserId === enterpriseUserId,
      );
      if (user === undefined) return invalid("enterpriseUserId is not a user of the caller");
      if (typeof name !== "string" || name === "") return invalid("name is required");
      if (!isInteger(lifetimeMs) || lifetimeMs <= 0 || lifetimeMs > MAX_TOKEN_LIFETIME_MS)
        return invalid("Token Lifetime should be less than or equal to 12 months");
      return { id: issue(user, name, lifetimeMs).id, rows: 1 };
    },
    /** enterpriseProxy/downloadApiToken: the key of a created token, once. */
    download: (caller: Token, params: Record<string, unknown>): { token: string } | TokenRefusal => {
      if (caller.owner.kind !== "partner" || !caller.renews) return PRIVILEGE;
      const token = ownTokenOf(caller, params["id"]);
      if ("code" in token) return token;
      return token.state === "created" ? { token: download(token) } : invalid("API token was already downloaded");
    },
    /** enterpriseProxy/revokeApiToken: its key refused from now on; revoking a revoked token modifies no row. */
    revoke: (caller: Token, params: Record<string, unknown>): { rows: number } | TokenRefusal => {
      if (caller.owner.kind !== "partner" || !caller.renews) return PRIVILEGE;
      const token = ownTokenOf(caller, params["id"]);
      if ("code" in token) return token;
      if (token.state === "revoked") return { rows: 0 };
      token.state = "revoked";
      return { rows: 1 };
    },
    /** Every token, as copies. */
    all: (): SimulatorToken[] => tokens.map((token) => ({ ...token })),
    /** The token behind `key`, as a copy, whatever its state. */
    of: (key: string): SimulatorToken | undefined => {
      const token = byKey.get(key);
      return token === undefined ? undefined : { ...token };
    },
  };
};

export type Tokens = ReturnType<typeof createTokens>;
