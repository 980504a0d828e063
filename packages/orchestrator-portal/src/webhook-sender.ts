import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { rootCertificates } from "node:tls";
import { admitsDestination, invalidInput, type DomainError, type WebhookSender } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import nodeFetch from "node-fetch";
import { fencedLookup } from "./fence.js";
import { parseRetryAfter } from "./retry.js";
import { isHostListed } from "./url.js";

export interface WebhookSenderOptions {
  /** Extra CAs trusted (SDWAN_ORCHESTRATOR_CA_FILE's), beside the system's. */
  readonly ca?: readonly string[];
  /** Hosts let through the destination fence (SDWAN_ORCHESTRATOR_ALLOWED_HOSTS). */
  readonly allowedHosts?: readonly string[] | undefined;
  /** SDWAN_WEBHOOK_ALLOW_HTTP: plain `http:` receivers too. */
  readonly allowHttp?: boolean;
}

/**
 * Whether a receiver's URL may be used: `https:` (or `http:` when allowed) and not a fenced destination (link-local,
 * cloud metadata; SPEC §4) unless the allowlist names the host. A name is checked again once resolved.
 */
export const admitsWebhookUrl =
  ({ allowedHosts, allowHttp = false }: WebhookSenderOptions) =>
  (url: string): E.Either<DomainError, void> => {
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && !(allowHttp && parsed.protocol === "http:"))
      return E.left(
        invalidInput([{ field: "body.url", message: "must be https (http only when SDWAN_WEBHOOK_ALLOW_HTTP=true)" }]),
      );
    const admitted = admitsDestination(parsed.hostname);
    return E.isRight(admitted) || isHostListed(parsed.hostname, allowedHosts)
      ? E.right(undefined)
      : E.left(invalidInput([{ field: "body.url", message: `${admitted.left}: refused as a webhook receiver` }]));
  };

/**
 * Core's WebhookSender over node-fetch, with the orchestrator client's destination fence and CAs: one POST per
 * call, TLS verified, no redirect followed, the answer's body never read beyond its end. Never throws.
 */
export const createWebhookSender = (options: WebhookSenderOptions = {}): WebhookSender & { close(): void } => {
  const admits = admitsWebhookUrl(options);
  const lookup = fencedLookup(options.allowedHosts);
  const httpAgent = new HttpAgent({ keepAlive: true, lookup });
  const httpsAgent = new HttpsAgent({
    keepAlive: true,
    lookup,
    ...(options.ca === undefined || options.ca.length === 0 ? {} : { ca: [...rootCertificates, ...options.ca] }),
  });
  return {
    send: async (request, timeoutMs) => {
      const admitted = admits(request.url);
      if (E.isLeft(admitted)) return { _tag: "failed", error: "refused destination" };
      try {
        const answer = await nodeFetch(request.url, {
          method: "POST",
          headers: request.headers,
          body: request.body,
          redirect: "manual",
          agent: (url) => (url.protocol === "https:" ? httpsAgent : httpAgent),
          signal: AbortSignal.timeout(timeoutMs),
        });
        await answer.arrayBuffer().catch(() => undefined);
        return {
          _tag: "answered",
          status: answer.status,
          retryAfterMs: O.toNullable(parseRetryAfter(answer.headers.get("retry-after"), Date.now())),
        };
      } catch (error) {
        const code = (error as { code?: string; name?: string }).code ?? (error as Error).name;
        return { _tag: "failed", error: code === "TimeoutError" || code === "AbortError" ? "timeout" : String(code) };
      }
    },
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
};
