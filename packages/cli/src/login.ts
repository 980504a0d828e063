import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { AuthConfig } from "@sdwan-connections/core/wire";
import * as E from "fp-ts/lib/Either.js";
import { pipe } from "fp-ts/lib/function.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { CommandOutput } from "./command.js";
import { contextsPath, readContexts, writeContexts, type ServiceContext } from "./contexts.js";

type Env = Readonly<Record<string, string | undefined>>;

/** openid-client, loaded by the commands that sign in (the others start without it). */
const openid = () => import("openid-client");

/** The provider's configuration for `issuer` and `clientId` (http: is allowed on loopback only, as the service allows it). */
const discover = async (issuer: string, clientId: string) => {
  const client = await openid();
  const url = new URL(issuer);
  const loopback = url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  return client.discovery(
    url,
    clientId,
    undefined,
    client.None(),
    loopback ? { execute: [client.allowInsecureRequests] } : undefined,
  );
};

/** Where a context's refresh token is kept: beside the contexts file, 0600. */
const refreshTokenFile = (contexts: string, name: string) =>
  join(dirname(contexts), `${name.replace(/[^A-Za-z0-9._-]/g, "_")}.refresh-token`);

const writeSecret = async (path: string, secret: string) => {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const aside = `${path}.${process.pid}.tmp`;
  await writeFile(aside, `${secret}\n`, { mode: 0o600 });
  await rename(aside, path);
};

// The provider's answers as one line, never a token: openid-client's errors carry the OAuth error code.
const why = (error: unknown): string =>
  error instanceof Error
    ? `${(error as { error?: string }).error ?? error.message}${(error as { error_description?: string }).error_description === undefined ? "" : `: ${(error as { error_description?: string }).error_description}`}`
    : "failed";

/**
 * `login --server URL`: the device authorization grant against the provider the service names; the context (a
 * service context with `oidc-issuer`, `oidc-client-id`, `refresh-token-file`) set and made current when none is.
 */
export const login =
  (
    options: Readonly<Record<string, string | boolean | undefined>>,
    env: Env,
    say: (line: string) => void,
  ): TE.TaskEither<string, CommandOutput> =>
  async () => {
    const server = typeof options["server"] === "string" ? options["server"].replace(/\/+$/, "") : undefined;
    if (server === undefined || !URL.canParse(server)) return E.left("login: --server URL is required");
    const contexts = contextsPath(env);
    if (contexts === undefined)
      return E.left("login: neither XDG_CONFIG_HOME nor HOME is set: nowhere to keep the sign-in");
    const name = typeof options["context"] === "string" ? options["context"] : new URL(server).host;
    let config: AuthConfig;
    try {
      const answer = await fetch(`${server}/rest/plugin/sdwan/auth/config`, { signal: AbortSignal.timeout(30_000) });
      const decoded = AuthConfig.decode(await answer.json());
      if (E.isLeft(decoded))
        return E.left(`login: ${server} does not answer GET /auth/config as an sdwan-connections service`);
      config = decoded.right;
    } catch (error) {
      return E.left(`login: the service at ${server} cannot be reached (${why(error)})`);
    }
    if (config.oidc === null)
      return E.left(
        `login: the service at ${server} has no OpenID provider (SDWAN_OIDC_ISSUER and SDWAN_OIDC_CLIENT_ID): use a password or a service token (config set-context ${name} --server ${server} --user NAME or --token-file FILE)`,
      );
    const clientId = typeof options["client-id"] === "string" ? options["client-id"] : config.oidc.clientId;
    try {
      const client = await openid();
      const provider = await discover(config.oidc.issuer, clientId);
      const device = await client.initiateDeviceAuthorization(provider, {
        scope: [...new Set([...config.oidc.scopes, "openid"])].join(" "),
      });
      say(
        `To sign in, open ${device.verification_uri} and enter the code ${device.user_code}${device.verification_uri_complete === undefined ? "" : ` (or open ${device.verification_uri_complete})`}; waiting…`,
      );
      const tokens = await client.pollDeviceAuthorizationGrant(provider, device);
      if (tokens.refresh_token === undefined)
        return E.left(
          `login: the provider gave no refresh token (client ${clientId} needs the refresh_token grant, or the offline_access scope in SDWAN_OIDC_SCOPES)`,
        );
      const file = await readContexts(contexts)();
      if (E.isLeft(file)) return file;
      const path = refreshTokenFile(contexts, name);
      await writeSecret(path, tokens.refresh_token);
      const context: ServiceContext = {
        name,
        server,
        "oidc-issuer": config.oidc.issuer,
        "oidc-client-id": clientId,
        "refresh-token-file": path,
      };
      const others = (file.right.contexts ?? []).filter((existing) => existing.name !== name);
      await writeContexts(contexts, {
        ...file.right,
        "current-context": file.right["current-context"] ?? name,
        contexts: [...others, context],
      });
      const claims = tokens.claims();
      const who = claims?.["preferred_username"] ?? claims?.sub;
      return E.right({
        message: `Signed in to ${server}${who === undefined ? "" : ` as ${String(who)}`}: context '${name}'${file.right["current-context"] === undefined || file.right["current-context"] === name ? " (current)" : `; use it with --context ${name} or config use-context ${name}`}.\n`,
      });
    } catch (error) {
      return E.left(`login: the provider refused the sign-in (${why(error)})`);
    }
  };

/**
 * A signed-in context's access token, fresh from its refresh token (kept again when the provider rotates it); a
 * refusal says to sign in again, never a token.
 */
export const accessTokenOf = (context: ServiceContext): TE.TaskEither<string, string> =>
  pipe(
    TE.tryCatch(
      async () => {
        const path = context["refresh-token-file"] as string;
        const refreshToken = (await readFile(path, "utf8")).trim();
        const client = await openid();
        const provider = await discover(context["oidc-issuer"] as string, context["oidc-client-id"] as string);
        const tokens = await client.refreshTokenGrant(provider, refreshToken);
        if (tokens.refresh_token !== undefined && tokens.refresh_token !== refreshToken)
          await writeSecret(path, tokens.refresh_token);
        return tokens.access_token;
      },
      (error) =>
        `context '${context.name}': the sign-in cannot be refreshed (${why(error)}); sign in again: sdwan-connections login --server ${context.server} --context ${context.name}`,
    ),
  );
