import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { performance } from "node:perf_hooks";
import * as E from "fp-ts/lib/Either.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import nodeFetch from "node-fetch";
import {
  orchestratorGarbage,
  orchestratorRateLimited,
  orchestratorRejected,
  orchestratorTimedOut,
  orchestratorUnreachable,
  type Customer,
  type Identity,
  type Orchestrator,
  type OrchestratorError,
  type OrchestratorTarget,
} from "@sdwan-connections/core";
import { backoffDelay, parseRetryAfter } from "./retry.js";
import { isHostAllowed, parseAllowedHosts, portalUrl, type PortalMethod } from "./url.js";
import { decodeCustomers, describeDecodeFailure, EnterpriseIdentity, ErrorBody, ProxyProperty } from "./wire.js";

/** The part of a fetch response this client reads (node-fetch's and WHATWG's both fit). */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

/** The fetch this client needs; defaults to node-fetch. `agent` is node-fetch's option (ignored by others). */
export type FetchLike = (
  url: string,
  init: {
    readonly method: "POST";
    readonly headers: Record<string, string>;
    readonly body: string;
    readonly signal: AbortSignal;
    readonly redirect: "manual";
    readonly agent: (url: URL) => HttpAgent;
  },
) => Promise<FetchResponse>;

/** How one portal call ended, for metrics: "ok", "refused" (by the orchestrator), or the error's tag. */
export type CallOutcome = "ok" | "refused" | OrchestratorError["_tag"];

export interface PortalCallEvent {
  readonly method: PortalMethod;
  readonly outcome: CallOutcome;
  /** From the first attempt to the final answer, waits included. */
  readonly durationMs: number;
  readonly attempts: number;
}

export interface PortalOrchestratorOptions {
  /** Per HTTP attempt, body included (SPEC §6 `SDWAN_ORCHESTRATOR_TIMEOUT_MS`); default 10 000. */
  readonly timeoutMs?: number;
  /** Retries after the first attempt, on 429, 5xx and a dropped connection; default 2. */
  readonly retries?: number;
  /** First backoff step; default 150 ms, doubling, with jitter. */
  readonly backoffBaseMs?: number;
  /** Longest wait before a retry, `Retry-After` included; default min(timeoutMs, 5 000). A longer `Retry-After` is not waited for. */
  readonly maxRetryWaitMs?: number;
  /**
   * Orchestrator host names allowed (`SDWAN_ORCHESTRATOR_ALLOWED_HOSTS`);
   * when omitted, read from that variable; `undefined` in it or here means any host.
   */
  readonly allowedHosts?: readonly string[] | undefined;
  readonly fetch?: FetchLike;
  /** Called once per portal call (after its retries); for metrics. Carries no key and no URL. */
  readonly onCall?: (event: PortalCallEvent) => void;
  readonly random?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** core's Orchestrator port, plus `close()` to free the keep-alive sockets. */
export interface PortalOrchestrator extends Orchestrator {
  close(): void;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRIES = 2;
const RESPONSE_LIMIT_BYTES = 64 * 1024 * 1024;

/** What one portal call came back with, when it came back at all. */
type Answer =
  | { readonly kind: "ok"; readonly body: unknown }
  /** The orchestrator answered with its `error` body (code only: its message is not ours to repeat). */
  | { readonly kind: "error"; readonly status: number; readonly code: number }
  /** 401 or 403. */
  | { readonly kind: "refused"; readonly status: number };

type Attempt =
  | { readonly done: E.Either<OrchestratorError, Answer> }
  | { readonly retry: OrchestratorError; readonly waitMs: number | undefined };

const RETRYABLE_NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ECONNABORTED", "EAI_AGAIN", "UND_ERR_SOCKET"]);

const errorCode = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === "string") return code;
  return cause === undefined ? undefined : errorCode(cause);
};

const isAbort = (error: unknown): boolean =>
  typeof error === "object" && error !== null && ((error as { name?: unknown }).name === "AbortError" || errorCode(error) === "ABORT_ERR");

const defaultFetch: FetchLike = (url, init) => nodeFetch(url, { ...init, size: RESPONSE_LIMIT_BYTES });

/**
 * core's Orchestrator over the portal REST API v1 (ORCHESTRATOR.md).
 *
 * - Every call is `POST {orchestratorUrl}/portal/rest/{method}` with
 *   `Authorization: Token <key>`, over a keep-alive agent; redirects are not
 *   followed (they could carry the key elsewhere) and count as garbage.
 * - Each attempt is aborted after `timeoutMs` (OrchestratorTimedOut, not retried:
 *   a slow orchestrator would only get slower). 429, 5xx and a dropped
 *   connection are retried up to `retries` times with jittered exponential
 *   backoff, honouring `Retry-After` up to `maxRetryWaitMs`.
 * - 401/403 and an orchestrator refusal are never retried.
 * - Answers are decoded; reasons name statuses, codes and field names, never
 *   the key, a header or a value from the answer.
 */
export const createPortalOrchestrator = (options: PortalOrchestratorOptions = {}): PortalOrchestrator => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retries = options.retries ?? DEFAULT_RETRIES;
  const backoffBaseMs = options.backoffBaseMs ?? 150;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? Math.min(timeoutMs, 5_000);
  const allowedHosts = "allowedHosts" in options ? options.allowedHosts : parseAllowedHosts(process.env["SDWAN_ORCHESTRATOR_ALLOWED_HOSTS"]);
  const fetch = options.fetch ?? defaultFetch;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
  const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 64 });
  const agent = (url: URL): HttpAgent => (url.protocol === "https:" ? httpsAgent : httpAgent);

  const attempt = async (url: URL, method: PortalMethod, apiKey: string, body: string): Promise<Attempt> => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const response = await fetch(url.href, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json", authorization: `Token ${apiKey}` },
        body,
        signal: controller.signal,
        redirect: "manual",
        agent,
      });
      const { status } = response;
      if (status === 429 || status >= 500) {
        const text = await response.text().catch(() => "");
        void text; // drained so the socket can be reused
        const waitMs = parseRetryAfter(response.headers.get("retry-after"), Date.now());
        const error =
          status === 429
            ? orchestratorRateLimited(`The orchestrator is rate limiting calls to ${method} (HTTP 429).`, waitMs === undefined ? undefined : Math.ceil(waitMs / 1000))
            : orchestratorUnreachable(`The orchestrator failed to answer ${method} (HTTP ${status}).`);
        return { retry: error, waitMs };
      }
      if (status === 401 || status === 403) {
        await response.text().catch(() => "");
        return { done: E.right({ kind: "refused", status }) };
      }
      if (status === 404) {
        await response.text().catch(() => "");
        return { done: E.left(orchestratorGarbage(`The orchestrator has no ${method} method (HTTP 404); check the orchestrator URL.`)) };
      }
      if (status >= 300 && status < 400) return { done: E.left(orchestratorGarbage(`The orchestrator answered ${method} with a redirect (HTTP ${status}); redirects are not followed.`)) };
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return { done: E.left(orchestratorGarbage(`The orchestrator's answer to ${method} is not JSON (HTTP ${status}).`)) };
      }
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && "error" in parsed) {
        const decoded = ErrorBody.decode(parsed);
        return E.isRight(decoded)
          ? { done: E.right({ kind: "error", status, code: decoded.right.error.code }) }
          : { done: E.left(orchestratorGarbage(`The orchestrator's error answer to ${method} is malformed (${describeDecodeFailure(decoded.left)}).`)) };
      }
      if (status < 200 || status >= 300) return { done: E.left(orchestratorGarbage(`The orchestrator answered ${method} with HTTP ${status} and no error body.`)) };
      return { done: E.right({ kind: "ok", body: parsed }) };
    } catch (error) {
      if (controller.signal.aborted || isAbort(error))
        return { done: E.left(orchestratorTimedOut(`The orchestrator did not answer ${method} within ${timeoutMs} ms.`)) };
      if (typeof error === "object" && error !== null && (error as { type?: unknown }).type === "max-size")
        return { done: E.left(orchestratorGarbage(`The orchestrator's answer to ${method} is larger than ${RESPONSE_LIMIT_BYTES / 2 ** 20} MiB.`)) };
      const code = errorCode(error);
      const reason = `The orchestrator could not be reached for ${method} (${code ?? "network error"}).`;
      return code !== undefined && RETRYABLE_NETWORK_CODES.has(code)
        ? { retry: orchestratorUnreachable(reason), waitMs: undefined }
        : { done: E.left(orchestratorUnreachable(reason)) };
    } finally {
      clearTimeout(timer);
    }
  };

  const call = async (target: OrchestratorTarget, method: PortalMethod, body: unknown): Promise<E.Either<OrchestratorError, Answer>> => {
    const started = performance.now();
    let attempts = 0;
    const finish = (result: E.Either<OrchestratorError, Answer>) => {
      const outcome: CallOutcome = E.isLeft(result) ? result.left._tag : result.right.kind === "ok" ? "ok" : "refused";
      options.onCall?.({ method, outcome, durationMs: performance.now() - started, attempts });
      return result;
    };
    const url = portalUrl(target.orchestratorUrl, method);
    if (E.isLeft(url)) return finish(url);
    if (!isHostAllowed(url.right, allowedHosts))
      return finish(E.left(orchestratorRejected("The orchestrator host is not in SDWAN_ORCHESTRATOR_ALLOWED_HOSTS.")));
    const payload = JSON.stringify(body);
    for (;;) {
      attempts += 1;
      const outcome = await attempt(url.right, method, target.apiKey.reveal(), payload);
      if ("done" in outcome) return finish(outcome.done);
      const retryIndex = attempts - 1;
      const wait = outcome.waitMs ?? backoffDelay(retryIndex, backoffBaseMs, maxRetryWaitMs, random);
      if (retryIndex >= retries || wait > maxRetryWaitMs) {
        const suffix = attempts > 1 ? ` after ${attempts} attempts` : "";
        return finish(E.left({ ...outcome.retry, reason: `${outcome.retry.reason.replace(/\.$/, "")}${suffix}.` }));
      }
      await sleep(wait);
    }
  };

  const identify =
    (target: OrchestratorTarget): TaskEither<OrchestratorError, Identity> =>
    async () => {
      const partner = await call(target, "enterpriseProxy/getEnterpriseProxyProperty", {});
      if (E.isLeft(partner)) return partner;
      switch (partner.right.kind) {
        case "refused":
          return E.left(orchestratorRejected(`The orchestrator refused the API key (HTTP ${partner.right.status}).`));
        case "ok": {
          const decoded = ProxyProperty.decode(partner.right.body);
          return E.isRight(decoded)
            ? E.right({ kind: "partner", partnerId: decoded.right.enterpriseProxyId })
            : E.left(orchestratorGarbage(`The orchestrator's answer to getEnterpriseProxyProperty lacks ${describeDecodeFailure(decoded.left)}.`));
        }
        case "error":
          break; // not a partner's key: is it a customer's?
      }
      const customer = await call(target, "enterprise/getEnterprise", {});
      if (E.isLeft(customer)) return customer;
      switch (customer.right.kind) {
        case "refused":
          return E.left(orchestratorRejected(`The orchestrator refused the API key (HTTP ${customer.right.status}).`));
        case "error":
          return E.left(
            orchestratorRejected(
              `The orchestrator accepts the API key neither as a partner's nor as a customer's (error code ${customer.right.code}).`,
            ),
          );
        case "ok": {
          const decoded = EnterpriseIdentity.decode(customer.right.body);
          return E.isRight(decoded)
            ? E.right({ kind: "customer", customerId: decoded.right.id })
            : E.left(orchestratorGarbage(`The orchestrator's answer to getEnterprise lacks ${describeDecodeFailure(decoded.left)}.`));
        }
      }
    };

  const listPartnerCustomers =
    (target: OrchestratorTarget, partnerId: number): TaskEither<OrchestratorError, readonly Customer[]> =>
    async () => {
      const answer = await call(target, "enterpriseProxy/getEnterpriseProxyEnterprises", { enterpriseProxyId: partnerId });
      if (E.isLeft(answer)) return answer;
      switch (answer.right.kind) {
        case "refused":
          return E.left(orchestratorRejected(`The orchestrator refused the API key (HTTP ${answer.right.status}).`));
        case "error":
          // A success status with an error member contradicts itself: garbage. A 4xx error body is a refusal.
          return answer.right.status < 300
            ? E.left(orchestratorGarbage(`The orchestrator answered getEnterpriseProxyEnterprises with HTTP ${answer.right.status} and an error member (code ${answer.right.code}).`))
            : E.left(orchestratorRejected(`The orchestrator refused to list partner ${partnerId}'s customers (HTTP ${answer.right.status}, error code ${answer.right.code}).`));
        case "ok": {
          const customers = decodeCustomers(answer.right.body);
          return E.isRight(customers)
            ? customers
            : E.left(orchestratorGarbage(`The orchestrator's answer to getEnterpriseProxyEnterprises is not a list of enterprises: ${customers.left}.`));
        }
      }
    };

  return {
    identify,
    listPartnerCustomers,
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
};
