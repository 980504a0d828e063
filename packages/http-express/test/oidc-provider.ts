import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider, { type ClientMetadata, type Configuration, type FindAccount } from "oidc-provider";

/** The audience this service's tokens are issued for (SDWAN_OIDC_AUDIENCE), and the resource indicator naming it. */
export const AUDIENCE = "sdwan-connections";
export const RESOURCE = "urn:sdwan-connections";
/** Another service's resource at the same provider: its tokens are not for us. */
export const OTHER_RESOURCE = "urn:other-service";

/** The provider's accounts: one per client-credentials client (an automation acting as that person), with groups. */
export const ACCOUNTS = {
  ann: { preferred_username: "ann", groups: ["sdwan-admins", "staff"] },
  vic: { preferred_username: "vic", groups: ["noc"] },
  nobody: { preferred_username: "nobody", groups: ["staff"] },
} as const;
export type AccountId = keyof typeof ACCOUNTS;

export const ADMIN_GROUP = "sdwan-admins";
/** The console's public client (SDWAN_OIDC_CLIENT_ID): authorization code + PKCE, no secret. */
export const CONSOLE_CLIENT_ID = "sdwan-console";
export const VIEWER_GROUP = "noc";

export interface TestProvider extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`: an http issuer on loopback, as SDWAN_OIDC_ISSUER allows for tests. */
  readonly issuer: string;
  /** An access token (a JWT) for `account`'s client, from the token endpoint (client credentials, resource indicator). */
  token(account: AccountId, resource?: string): Promise<string>;
  /**
   * Registers the console's public PKCE client, with `consoleUrl` (the console's page) as its redirect URI and its
   * page after sign-out, and the provider's development sign-in page (any password; the login an account's id).
   */
  allowConsole(consoleUrl: string): void;
  /** A new signing key, published first and used from now on (the old one stays published). */
  rotateKeys(): Promise<void>;
  /** How many times its key set was fetched. */
  readonly jwksFetches: () => number;
  /** The `kid` of the key it signs with now. */
  readonly signingKid: () => string;
  close(): Promise<void>;
}

const signingKey = async (): Promise<JWK> => {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { ...(await exportJWK(privateKey)), kid: crypto.randomUUID(), alg: "RS256", use: "sig" };
};

/**
 * A real, certified OpenID provider (panva's oidc-provider) on 127.0.0.1, port 0: one confidential
 * client-credentials client per account, whose JWT access tokens carry the account's claims (found through
 * `findAccount`) and the audience of the requested resource. Rotating keys swaps in a provider with the new key
 * first; the issuer and clients stay the same.
 */
export const startTestProvider = async (): Promise<TestProvider> => {
  const server: Server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let keys: JWK[] = [await signingKey()];
  let consoleUrl: string | undefined;

  const findAccount: FindAccount = (_ctx, id) =>
    id in ACCOUNTS ? { accountId: id, claims: () => ({ sub: id, ...ACCOUNTS[id as AccountId] }) } : undefined;
  const configuration = (): Configuration => ({
    clients: [
      ...(Object.keys(ACCOUNTS) as AccountId[]).map((id) => ({
        client_id: id,
        client_secret: `${id}-secret`,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
      })),
      ...(consoleUrl === undefined
        ? []
        : ([
            {
              client_id: CONSOLE_CLIENT_ID,
              token_endpoint_auth_method: "none",
              grant_types: ["authorization_code"],
              response_types: ["code"],
              redirect_uris: [consoleUrl],
              post_logout_redirect_uris: [consoleUrl],
            },
          ] satisfies ClientMetadata[])),
    ],
    jwks: { keys },
    ttl: { ClientCredentials: 600 },
    findAccount,
    // The console is first-party: its user's consent is given (the OpenID scopes and our resource), no page asks.
    loadExistingGrant: async (ctx) => {
      const { client, session, provider: at } = ctx.oidc;
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? (client === undefined ? undefined : session?.grantIdFor(client.clientId));
      if (grantId !== undefined) return at.Grant.find(grantId);
      if (client?.clientId !== CONSOLE_CLIENT_ID || session?.accountId === undefined) return undefined;
      const grant = new at.Grant({ clientId: CONSOLE_CLIENT_ID, accountId: session.accountId });
      grant.addOIDCScope("openid profile");
      grant.addResourceScope(RESOURCE, "sdwan");
      await grant.save();
      return grant;
    },
    // A client-credentials token has no account of its own: its client's is looked up and its claims added.
    extraTokenClaims: async (ctx, token) => {
      const account = await findAccount(
        ctx,
        (("accountId" in token ? token.accountId : undefined) ?? token.clientId) as string,
      );
      const { sub: _sub, ...claims } = (await account?.claims("id_token", "openid", {}, [])) ?? {};
      return claims;
    },
    features: {
      devInteractions: { enabled: consoleUrl !== undefined },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        // An authorization code's access token is for the resource granted at the authorization (ours), not userinfo.
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: "sdwan",
          audience: resource === RESOURCE ? AUDIENCE : "other-service",
          accessTokenTTL: 600,
          accessTokenFormat: "jwt",
        }),
      },
    },
  });

  let provider = new Provider(issuer, configuration());

  let jwksFetches = 0;
  server.on("request", (req, res) => {
    if (req.url === "/jwks") jwksFetches += 1;
    void provider.callback()(req, res);
  });

  return {
    issuer,
    token: async (account, resource = RESOURCE) => {
      const response = await fetch(`${issuer}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: account,
          client_secret: `${account}-secret`,
          resource,
          scope: "sdwan",
        }),
      });
      const body = (await response.json()) as { access_token?: string };
      if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    allowConsole: (url) => {
      consoleUrl = url;
      provider = new Provider(issuer, configuration());
    },
    rotateKeys: async () => {
      keys = [await signingKey(), ...keys];
      provider = new Provider(issuer, configuration());
    },
    jwksFetches: () => jwksFetches,
    signingKid: () => keys[0]?.kid as string,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    [Symbol.asyncDispose]: async function (this: TestProvider) {
      await this.close();
    },
  };
};
