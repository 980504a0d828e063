import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { invalidInput, type DomainError, type WebhookSender } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { admitsHost, fencedAgents, isHostListed } from "./fence.js";
import { parseRetryAfter } from "./retry.js";

export interface OutboundOptions {
  /** Extra CAs trusted (SDWAN_ORCHESTRATOR_CA_FILE's), beside the system's. */
  readonly ca?: readonly string[];
  /** Hosts let through the destination fence (SDWAN_ORCHESTRATOR_ALLOWED_HOSTS). */
  readonly allowedHosts?: readonly string[] | undefined;
  /** SDWAN_WEBHOOK_ALLOW_HTTP: plain `http:` receivers too, on any host or on the hosts listed only. */
  readonly allowHttp?: "any" | readonly string[];
}

/** A GET answered as `fetch` answers it (the OpenID provider's discovery, jose's JWKS), ended by its signal. */
export type OutboundFetch = (
  url: string,
  init: { readonly headers?: ConstructorParameters<typeof Headers>[0]; readonly signal: AbortSignal },
) => Promise<Response>;

/**
 * Whether a receiver's URL may be used: `https:` (or `http:` when allowed) and not a fenced destination (link-local,
 * cloud metadata; SPEC §4) unless the allowlist names the host. A name is checked again once resolved.
 */
const admitsWebhookUrl =
  ({ allowedHosts, allowHttp = [] }: OutboundOptions) =>
  (url: string): E.Either<DomainError, void> => {
    const parsed = new URL(url);
    const httpAllowed = allowHttp === "any" || isHostListed(parsed.hostname, allowHttp);
    if (parsed.protocol !== "https:" && !(httpAllowed && parsed.protocol === "http:"))
      return E.left(
        invalidInput([
          {
            field: "url",
            message: "must be https (http only to the hosts SDWAN_WEBHOOK_ALLOW_HTTP names, or any when it is true)",
          },
        ]),
      );
    return E.mapLeft((message: string) => invalidInput([{ field: "url", message }]))(
      admitsHost(parsed.hostname, allowedHosts),
    );
  };

/**
 * Every request the service sends out but the orchestrator client's: core's WebhookSender and the OpenID provider's
 * GETs (`fetch`), over node's own HTTP client with the orchestrator client's destination fence and CAs, keep-alive
 * agents shared. TLS verified, no redirect followed; a webhook's answer body is drained, never kept. `send` never
 * throws. (Not node-fetch, as the orchestrator client: its streams and abort signals tripled what a POST costs.)
 */
export const createOutboundClient = (options: OutboundOptions = {}) => {
  const admits = admitsWebhookUrl(options);
  const { agent, close } = fencedAgents(options);
  /** One request (its body's length set by `end`): its status, headers and (`keep`) body; a failure rejects. */
  const request = (
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string; keep?: boolean; signal?: AbortSignal },
    timeoutMs?: number,
  ) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const { body, keep, ...sent } = init;
      const target = new URL(url);
      // A name is fenced once resolved (the agents' lookup); an address is not looked up, so it is fenced here.
      if (E.isLeft(admitsHost(target.hostname, options.allowedHosts)))
        return reject(Object.assign(new Error("fenced destination"), { code: "EFENCED" }));
      const https = target.protocol === "https:";
      const outgoing = (https ? httpsRequest : httpRequest)(target, { ...sent, agent: agent(target) });
      const timeout = () => outgoing.destroy(Object.assign(new Error("timeout"), { code: "timeout" }));
      const timer = timeoutMs === undefined ? undefined : setTimeout(timeout, timeoutMs);
      const failed = (error: Error) => {
        clearTimeout(timer);
        reject(error);
      };
      outgoing.on("error", failed);
      outgoing.on("response", (response) => {
        const chunks: Buffer[] = [];
        response.on("error", failed);
        // Cut off before its end (the receiver or the timeout closed it): not an answer.
        response.on("close", () => {
          if (!response.complete) failed(Object.assign(new Error("cut off"), { code: "ECONNRESET" }));
        });
        if (keep === true) response.on("data", (chunk: Buffer) => chunks.push(chunk));
        else response.resume();
        response.on("end", () => {
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
        });
      });
      outgoing.end(body);
    });

  const send: WebhookSender["send"] = async ({ url, headers, body }, timeoutMs) => {
    if (E.isLeft(admits(url))) return { _tag: "failed", error: "refused destination" };
    return request(url, { method: "POST", headers, body }, timeoutMs).then(
      (answer) => ({
        _tag: "answered",
        status: answer.status,
        retryAfterMs: O.toNullable(parseRetryAfter(answer.headers["retry-after"] ?? null, Date.now())),
      }),
      (error: Error & { code?: string }) => ({ _tag: "failed", error: error.code ?? error.name }),
    );
  };
  const fetch: OutboundFetch = async (url, { headers, signal }) => {
    const answer = await request(url, {
      method: "GET",
      headers: Object.fromEntries(new Headers(headers)),
      signal,
      keep: true,
    });
    return new Response(answer.body.length === 0 ? null : answer.body, { status: answer.status });
  };
  return { admits, send, fetch, close };
};
