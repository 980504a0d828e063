import { describeError, type CoreOptions, type WebhookSender } from "@sdwan-connections/core";
import { pipe } from "fp-ts/lib/function.js";
import * as E from "fp-ts/lib/Either.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import type { Config } from "../config.js";
import type { LogSink } from "../log-sink.js";
import type { Tracing } from "../tracing.js";
import { loadCertificateAuthorities } from "./orchestrator.js";

/**
 * How core's webhooks (SPEC §9) are sent: through orchestrator-portal's webhook sender (the destination
 * fence, SDWAN_ORCHESTRATOR_CA_FILE's CAs, SDWAN_WEBHOOK_ALLOW_HTTP), loaded at the first webhook created or sent:
 * a CLI command never loads it. Attempts are logged with status and latency, never a body.
 */
export const webhookSending = (
  config: Config,
  logger: LogSink,
  tracing?: Tracing,
): { readonly options: NonNullable<CoreOptions["webhooks"]>; close(): void } => {
  let loaded: ReturnType<typeof load> | undefined;
  const load = async () => {
    const { admitsWebhookUrl, createWebhookSender } = await import("@sdwan-connections/outbound-http");
    const ca =
      config.orchestratorCaFile === undefined
        ? undefined
        : await loadCertificateAuthorities(config.orchestratorCaFile)();
    const options = {
      allowedHosts: config.orchestratorAllowedHosts,
      allowHttp: config.webhooks.allowHttp,
      ...(ca === undefined || E.isLeft(ca) ? {} : { ca: ca.right }),
    };
    // The start already refused an unreadable file (the orchestrator client reads it first); said again should it have changed.
    if (ca !== undefined && E.isLeft(ca)) logger.error({ problem: ca.left }, "webhook receivers' CAs not read");
    return { admits: admitsWebhookUrl(options), sender: createWebhookSender(options) };
  };
  const sender = () => (loaded ??= load());
  const send: WebhookSender = { send: async (request, timeoutMs) => (await sender()).sender.send(request, timeoutMs) };
  const options: NonNullable<CoreOptions["webhooks"]> = {
    retrySchedule: config.webhooks.retrySchedule,
    sender: tracing?.traceWebhookSender(send) ?? send,
    admitsUrl: (url) =>
      pipe(
        TE.fromTask(sender),
        TE.flatMapEither(({ admits }) => admits(url)),
      ),
    onAttempt: ({ webhookId, eventId, status, error, latencyMs }) =>
      logger.info({ webhookId, eventId, status, error, latencyMs }, "webhook delivery attempt"),
    onError: (error) => logger.warn({ problem: describeError(error) }, "webhook outbox not read or written"),
  };
  return { options, close: () => void loaded?.then(({ sender: opened }) => opened.close()) };
};
