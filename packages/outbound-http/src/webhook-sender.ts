import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { rootCertificates } from "node:tls";
import { admitsDestination, invalidInput, type DomainError, type WebhookSender } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import { fencedLookup, isHostListed } from "./fence.js";
import { parseRetryAfter } from "./retry.js";

export interface WebhookSenderOptions {
  /** Extra CAs trusted (SDWAN_ORCHESTRATOR_CA_FILE's), beside the system's. */
  readonly ca?: readonly string[];
  /** Hosts let through the destination fence (SDWAN_ORCHESTRATOR_ALLOWED_HOSTS). */
  readonly allowedHosts?: readonly string[] | undefined;
  /** SDWAN_WEBHOOK_ALLOW_HTTP: plain `http:` receivers too, on any host or on the hosts listed only. */
  readonly allowHttp?: "any" | readonly string[];
}

/**
 * Whether a receiver's URL may be used: `https:` (or `http:` when allowed) and not a fenced destination (link-local,
 * cloud metadata; SPEC §4) unless the allowlist names the host. A name is checked again once resolved.
 */
export const admitsWebhookUrl =
  ({ allowedHosts, allowHttp = [] }: WebhookSenderOptions) =>
  (url: string): E.Either<DomainError, void> => {
    const parsed = new URL(url);
    const httpAllowed = allowHttp === "any" || isHostListed(parsed.hostname, allowHttp);
    if (parsed.protocol !== "https:" && !(httpAllowed && parsed.protocol === "http:"))
      return E.left(
        invalidInput([
          {
            field: "body.url",
            message: "must be https (http only to the hosts SDWAN_WEBHOOK_ALLOW_HTTP names, or any when it is true)",
          },
        ]),
      );
    const admitted = admitsDestination(parsed.hostname);
    return E.isRight(admitted) || isHostListed(parsed.hostname, allowedHosts)
      ? E.right(undefined)
      : E.left(invalidInput([{ field: "body.url", message: `${admitted.left}: refused as a webhook receiver` }]));
  };

/**
 * Core's WebhookSender over node's own HTTP client, with the orchestrator client's destination fence and CAs: one
 * POST per call, TLS verified, no redirect followed, the answer's body drained, never kept. Never throws. (Not
 * node-fetch, as the orchestrator client: a relay makes one POST per event, and node-fetch's streams and abort
 * signals tripled what one costs.)
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
    send: (request, timeoutMs) =>
      new Promise((answer) => {
        if (E.isLeft(admits(request.url))) return answer({ _tag: "failed", error: "refused destination" });
        const url = new URL(request.url);
        const https = url.protocol === "https:";
        const sent = (https ? httpsRequest : httpRequest)(url, {
          method: "POST",
          headers: { ...request.headers, "content-length": Buffer.byteLength(request.body) },
          agent: https ? httpsAgent : httpAgent,
        });
        const timer = setTimeout(
          () => sent.destroy(Object.assign(new Error("timeout"), { code: "timeout" })),
          timeoutMs,
        );
        const failed = (error: Error & { code?: string }) => {
          clearTimeout(timer);
          answer({ _tag: "failed", error: error.code ?? error.name });
        };
        sent.on("error", failed);
        sent.on("response", (response) => {
          response.on("error", failed);
          // Cut off before its end (the receiver or the timeout closed it): not an answer.
          response.on("close", () => {
            if (!response.complete) failed(Object.assign(new Error("cut off"), { code: "ECONNRESET" }));
          });
          response.resume();
          response.on("end", () => {
            clearTimeout(timer);
            answer({
              _tag: "answered",
              status: response.statusCode ?? 0,
              retryAfterMs: O.toNullable(parseRetryAfter(response.headers["retry-after"] ?? null, Date.now())),
            });
          });
        });
        sent.end(request.body);
      }),
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
};
