import { AuthConfig } from "@sdwan-connections/core/wire";
import { isLeft } from "fp-ts/lib/Either.js";
import * as t from "io-ts";
import type { AuthorizationServer, Client } from "oauth4webapi";
import { API } from "./api.js";

// Loaded only for a sign-in at a provider: a console without one does not carry it (about 10 KB gzipped).
const library = () => import("oauth4webapi");

/** GET /auth/config's provider the console signs in with (authorization code + PKCE); null: Basic only. */
export type OidcProvider = NonNullable<AuthConfig["oidc"]>;

/** The provider, or null when the service has none for the console (or cannot say: Basic works in any case). */
export const providerOfService = async (): Promise<OidcProvider | null> => {
  try {
    const response = await fetch(`${API}/auth/config`, { cache: "no-store" });
    const decoded = AuthConfig.decode(await response.json());
    return isLeft(decoded) ? null : decoded.right.oidc;
  } catch {
    return null;
  }
};

/** Where the provider sends the browser back (with the code) and after signing out: the console itself. */
const consoleUrl = (): string => `${location.origin}${location.pathname}`;

/** What one sign-in's round trip through the provider needs back, in the tab's sessionStorage meanwhile only. */
const RoundTrip = t.type({ state: t.string, verifier: t.string, hash: t.string });
const ROUND_TRIP_KEY = "sdwan-console-sign-in";

// The service accepts an http: issuer on a loopback address only (tests, sidecars); oauth4webapi asks to be told.
const requestOptions = async (provider: OidcProvider) => ({
  [(await library()).allowInsecureRequests]: new URL(provider.issuer).protocol === "http:",
});

const discover = async (provider: OidcProvider): Promise<AuthorizationServer> => {
  const oauth = await library();
  const issuer = new URL(provider.issuer);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: "oidc", ...(await requestOptions(provider)) }),
  );
};

/** Leaves for the provider's sign-in page (authorization code + PKCE); the page shown now comes back after. */
export const signInAtProvider = async (provider: OidcProvider): Promise<void> => {
  const oauth = await library();
  const server = await discover(provider);
  if (server.authorization_endpoint === undefined)
    throw new Error(`${provider.issuer} names no authorization endpoint.`);
  const roundTrip: t.TypeOf<typeof RoundTrip> = {
    state: oauth.generateRandomState(),
    verifier: oauth.generateRandomCodeVerifier(),
    hash: location.hash,
  };
  sessionStorage.setItem(ROUND_TRIP_KEY, JSON.stringify(roundTrip));
  const url = new URL(server.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: provider.clientId,
    redirect_uri: consoleUrl(),
    response_type: "code",
    scope: provider.scopes.join(" "),
    state: roundTrip.state,
    code_challenge: await oauth.calculatePKCECodeChallenge(roundTrip.verifier),
    code_challenge_method: "S256",
  }).toString();
  location.assign(url.href);
};

/** Whether the address is the provider's answer to a sign-in (a code, or an error). */
export const isProviderAnswer = (): boolean => new URLSearchParams(location.search).has("state");

/** The tokens of a sign-in at the provider: the access token for the API, the ID token to name the session at sign-out. */
export interface ProviderTokens {
  readonly accessToken: string;
  readonly idToken: string | undefined;
}

/**
 * Turns the provider's answer in the address into tokens (the code and the round trip's verifier at the token
 * endpoint). The answer leaves the address at once, and the page shown before the sign-in comes back.
 */
export const completeSignIn = async (provider: OidcProvider): Promise<ProviderTokens> => {
  const answer = new URLSearchParams(location.search);
  const stored = RoundTrip.decode(JSON.parse(sessionStorage.getItem(ROUND_TRIP_KEY) ?? "null"));
  sessionStorage.removeItem(ROUND_TRIP_KEY);
  history.replaceState(null, "", `${location.pathname}${isLeft(stored) ? "" : stored.right.hash}`);
  dispatchEvent(new HashChangeEvent("hashchange")); // replaceState does not say it: the router follows
  if (isLeft(stored)) throw new Error("This sign-in was not started from this tab: sign in again.");
  const oauth = await library();
  const server = await discover(provider);
  const client: Client = { client_id: provider.clientId };
  const parameters = oauth.validateAuthResponse(server, client, answer, stored.right.state);
  const response = await oauth.authorizationCodeGrantRequest(
    server,
    client,
    oauth.None(),
    parameters,
    consoleUrl(),
    stored.right.verifier,
    await requestOptions(provider),
  );
  const tokens = await oauth.processAuthorizationCodeResponse(server, client, response);
  return { accessToken: tokens.access_token, idToken: tokens.id_token };
};

/** The provider's page that ends its own session and comes back to the console, when the provider has one. */
export const providerSignOutUrl = async (
  provider: OidcProvider,
  idToken: string | undefined,
): Promise<string | undefined> => {
  const server = await discover(provider);
  if (server.end_session_endpoint === undefined) return undefined;
  const url = new URL(server.end_session_endpoint);
  url.search = new URLSearchParams({
    client_id: provider.clientId,
    post_logout_redirect_uri: consoleUrl(),
    ...(idToken === undefined ? {} : { id_token_hint: idToken }),
  }).toString();
  return url.href;
};
