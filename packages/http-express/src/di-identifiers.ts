import type { Groups } from "@sdwan-connections/composition";
import type { Express } from "express";
import type { ServiceIdentifier } from "inversify";
import type { Authenticator } from "./auth/authenticator.js";
import type { BearerAuthenticator } from "./auth/bearer.js";
import type { SessionTokens } from "./auth/console-session.js";
import type { LoginThrottle } from "./auth/throttle.js";
import type { Users } from "./auth/users.js";
import type { EventStreams } from "./routes/events.js";

/** Shared by the server (which sets it on shutdown) and the app (whose `/readyz` reports it). */
export interface Lifecycle {
  draining: boolean;
  /** The open event streams' enders: a shutdown ends them before it drains. */
  readonly eventStreams: EventStreams;
}

/** Users and their verified-credentials cache, with the watcher that reloads them. */
export interface Auth {
  readonly authenticator: Authenticator;
  readonly throttle: LoginThrottle;
  /** Bearer tokens of the OpenID provider, when one is configured. */
  readonly bearer: BearerAuthenticator | undefined;
  /** The console's session tokens (GET /session). */
  readonly sessions: SessionTokens;
  /** SDWAN_GROUPS_FILE's groups, as read last. */
  readonly groups: () => Groups;
  close(): Promise<void>;
}

/** What the REST driver binds on top of the composition's tokens. */
export const HTTP_IDS = {
  Lifecycle: Symbol.for("sdwan.http.Lifecycle") as ServiceIdentifier<Lifecycle>,
  /** The users read at start; the authentication reloads them when their files change. */
  Users: Symbol.for("sdwan.http.Users") as ServiceIdentifier<Users>,
  /** SDWAN_GROUPS_FILE's groups read at start; the authentication reloads them when the file changes. */
  Groups: Symbol.for("sdwan.http.Groups") as ServiceIdentifier<Groups>,
  Auth: Symbol.for("sdwan.http.Auth") as ServiceIdentifier<Auth>,
  App: Symbol.for("sdwan.http.App") as ServiceIdentifier<Express>,
} as const;
