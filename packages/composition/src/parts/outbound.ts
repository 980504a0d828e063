import { describeError, type CoreOptions, type WebhookSender } from "@sdwan-connections/core";
import type { OutboundFetch } from "@sdwan-connections/outbound-http";
import * as E from "fp-ts/lib/Either.js";
import type { Config } from "../config.js";
import type { LogSink } from "../log-sink.js";
import type { Tracing } from "../tracing.js";
import type { CaFile } from "./orchestrator.js";

/**
 * What the service asks over HTTP but the orchestrator: core's webhooks (SPEC §9) and the OpenID provider's
 * documents (`fetch`), through outbound-http's one client (the destination fence, SDWAN_ORCHESTRATOR_CA_FILE's CAs,
 * SDWAN_WEBHOOK_ALLOW_HTTP), loaded at the first webhook created or sent or document read: a CLI command never loads
 * it. Attempts are logged with status and latency, never a body.
 */
export const outboundHttp = (
  config: Config,
  logger: LogSink,
  caFile: CaFile,
  tracing?: Tracing,
): { readonly webhooks: NonNullable<CoreOptions["webhooks"]>; readonly fetch: OutboundFetch; close(): void } => {
  let loaded: ReturnType<typeof load> | undefined;
  const load = async () => {
    const { createOutboundClient } = await import("@sdwan-connections/outbound-http");
    const ca = await caFile();
    // With the portal client, the start refused an unreadable file already; with another orchestrator, it is said here.
    if (E.isLeft(ca)) logger.error({ problem: ca.left }, "outbound requests' CAs not read");
    return createOutboundClient({
      allowedHosts: config.orchestratorAllowedHosts,
      allowHttp: config.webhooks.allowHttp,
      ca: E.isLeft(ca) ? [] : ca.right,
    });
  };
  const opened = () => (loaded ??= load());
  const send: WebhookSender = { send: async (request, timeoutMs) => (await opened()).send(request, timeoutMs) };
  return {
    webhooks: {
      retrySchedule: config.webhooks.retrySchedule,
      sender: tracing?.traceWebhookSender(send) ?? send,
      admitsUrl: (url) => async () => (await opened()).admits(url),
      onAttempt: ({ webhookId, eventId, status, error, latencyMs }) =>
        logger.info({ webhookId, eventId, status, error, latencyMs }, "webhook delivery attempt"),
      onError: (error) => logger.warn({ problem: describeError(error) }, "webhook outbox not read or written"),
    },
    fetch: async (url, init) => (await opened()).fetch(url, init),
    close: () => void loaded?.then((client) => client.close()),
  };
};
