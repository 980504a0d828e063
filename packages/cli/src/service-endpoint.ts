import { request as httpRequest } from "node:http";

/** How the CLI reaches a running service: its URL, the context it came from, its credentials and CAs. */
export interface ServiceEndpoint {
  /** The service's base URL (without /rest/plugin/sdwan). */
  readonly server: string;
  /** The context's name, for the lines that blame the context (wrong credentials, wrong server). */
  readonly context: string;
  /** The Authorization header: Basic from the user and password, or a Bearer token. */
  readonly authorization: string | undefined;
  /** PEM of the CAs to trust for an https: server, besides Node's own. */
  readonly ca?: string;
  /** How long one request may take. */
  readonly timeoutMs: number;
  /**
   * A signed-in context's Authorization made anew (its access token refreshed): asked before `events --follow` opens
   * its stream again, which may outlive the access token it started with.
   */
  readonly reauthorize?: () => Promise<string | undefined>;
  /** Told when `events --follow` lost its stream and opens it again, and when it is back (a line for people). */
  readonly onReconnect?: (line: string) => void;
}

/**
 * How a request to `url` is made: node:https, and TLS with it, is loaded only for an https: service (16M
 * instructions, 7% of a `list` through a service on http:).
 */
export const requestOf = async (url: URL): Promise<typeof httpRequest> =>
  url.protocol === "https:" ? (await import("node:https")).request : httpRequest;
