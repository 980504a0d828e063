import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";

/**
 * A real OpenID provider (panva's oidc-provider, as the REST service's and the console's tests use it) on
 * 127.0.0.1 with the device authorization grant (RFC 8628) for the console's public client, whose access tokens
 * are JWTs for the service (`AUDIENCE`) carrying the account's name and groups, and refresh tokens.
 */
export const AUDIENCE = "sdwan-connections";
export const CLIENT_ID = "sdwan-console";
export const ADMIN_GROUP = "sdwan-admins";
const RESOURCE = "urn:sdwan-connections";

export const startDeviceProvider = async () => {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const key = { ...(await exportJWK(privateKey)), kid: "k1", alg: "RS256", use: "sig" };
  const claimsOf = (id: string) => ({ sub: id, preferred_username: id, groups: [ADMIN_GROUP] });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: "none",
        grant_types: ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"],
        response_types: [],
        redirect_uris: [],
      },
    ],
    jwks: { keys: [key] },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => claimsOf(id) }),
    issueRefreshToken: async () => true,
    // First-party: the user's consent is given, no page asks.
    loadExistingGrant: async (ctx) => {
      const { client, session, provider: at } = ctx.oidc;
      const grantId =
        ctx.oidc.result?.consent?.grantId ?? (client === undefined ? undefined : session?.grantIdFor(client.clientId));
      if (grantId !== undefined) return at.Grant.find(grantId);
      if (client === undefined || session?.accountId === undefined) return undefined;
      const grant = new at.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope("openid profile");
      grant.addResourceScope(RESOURCE, "sdwan");
      await grant.save();
      return grant;
    },
    extraTokenClaims: async (_ctx, token) => {
      const { sub: _sub, ...claims } = claimsOf(("accountId" in token ? token.accountId : undefined) as string);
      return claims;
    },
    features: {
      devInteractions: { enabled: true },
      deviceFlow: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => RESOURCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: "sdwan",
          audience: AUDIENCE,
          accessTokenTTL: 600,
          accessTokenFormat: "jwt",
        }),
      },
    },
  });
  server.on("request", (req, res) => void provider.callback()(req, res));

  /**
   * Approves a device code as a person would in a browser: opens `url` (the verification URI with its code),
   * confirms, signs in as `account` on the provider's development pages (any password), carrying cookies and
   * following redirects by hand; answers the last page's text.
   */
  const approve = async (url: string, account: string): Promise<string> => {
    const cookies = new Map<string, string>();
    const send = async (target: string, form?: URLSearchParams): Promise<{ text: string; at: string }> => {
      let next: string | undefined = target;
      let body = form;
      let text = "";
      let at = target;
      for (let hop = 0; next !== undefined && hop < 20; hop += 1) {
        const response: Response = await fetch(next, {
          method: body === undefined ? "GET" : "POST",
          redirect: "manual",
          headers: {
            cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
            ...(body === undefined ? {} : { "content-type": "application/x-www-form-urlencoded" }),
          },
          ...(body === undefined ? {} : { body }),
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair = ""] = line.split(";");
          const index = pair.indexOf("=");
          cookies.set(pair.slice(0, index), pair.slice(index + 1));
        }
        at = next;
        const location = response.headers.get("location");
        next = location === null ? undefined : new URL(location, next).href;
        body = undefined;
        text = await response.text();
      }
      return { text, at };
    };
    let page = await send(url);
    for (let step = 0; step < 6; step += 1) {
      const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(page.text);
      if (form === null) return page.text;
      const fields = new URLSearchParams();
      for (const input of form[2]?.matchAll(/<input[^>]*>/gi) ?? []) {
        const name = /name="([^"]*)"/.exec(input[0])?.[1];
        const value = /value="([^"]*)"/.exec(input[0])?.[1] ?? "";
        if (name === undefined) continue;
        fields.set(name, name === "login" ? account : name === "password" ? "any" : value);
      }
      // The confirmation page's button (the device code's form is filled already).
      if (/name="confirm"/.test(page.text) || /op\.deviceConfirmForm/.test(page.text)) fields.set("confirm", "yes");
      page = await send(new URL(form[1] ?? "", page.at).href, fields);
    }
    return page.text;
  };

  return {
    issuer,
    approve,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
