import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { DelegateBackoff, handleWhenResult, retry } from "cockatiel";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import nodeFetch from "node-fetch";
import {
  orchestratorFailed,
  orchestratorGarbage,
  orchestratorRateLimited,
  orchestratorRejected,
  orchestratorTimedOut,
  orchestratorUnreachable,
  type Deadline,
  type OrchestratorError,
  type OrchestratorTarget,
} from "@sdwan-connections/core";
import { declaredLength, doneWithBody, readBody } from "./body.js";
import type { CallOutcome, FetchLike, PortalOrchestratorOptions } from "./options.js";
import { admitsHost, backoffDelay, fencedAgents, parseRetryAfter } from "@sdwan-connections/outbound-http";
import { isHostAllowed, portalUrl, type PortalMethod } from "./url.js";
import { describeDecodeFailure, ErrorBody, PARSE_LIMIT_BYTES } from "./wire.js";

// How the client reaches the portal API: one call's attempts, retries, deadline and reading of the answer.

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
/** The vendor's documented rate-limit penalty: a 429 without Retry-After means this long. */
const RATE_LIMIT_PENALTY_MS = 5_000;
/** The most bytes a list may take; any other answer may take `PARSE_LIMIT_BYTES`, as it is parsed whole. */
export const LIST_LIMIT_BYTES = 64 * 1024 * 1024;
export const tooLarge = (method: PortalMethod, limitBytes: number, what = ""): OrchestratorError =>
  orchestratorGarbage(`The orchestrator's answer to ${method} is larger than ${limitBytes / 2 ** 20} MiB${what}.`);

/** One portal call: its method and body, and whether its answer is a list. */
export interface PortalRequest {
  readonly method: PortalMethod;
  readonly body: unknown;
  /**
   * What the answer is, if it is a list (as reasons name it): it may then take up to `LIST_LIMIT_BYTES`, and a 2xx
   * JSON array is answered unparsed, for the caller to read an item at a time; any other answer past
   * `PARSE_LIMIT_BYTES` is garbage.
   */
  readonly list?: string;
  /**
   * The call acts and must not be repeated when its outcome is unknown (a new token made or handed out): it is tried
   * again only after a 429, which the orchestrator answers before acting.
   */
  readonly once?: boolean;
}

/** What the orchestrator itself answered to one portal call. */
export type Answer<A> =
  /** A 2xx JSON body without an `error` member (a list's array: unparsed), as the caller read it. */
  | { readonly kind: "ok"; readonly status: number; readonly value: A }
  /**
   * Its `error` body at any status below 500 but 429 (code only: its message is not ours to repeat), or a bare 401/403;
   * `privilege` when it says the key lacks a privilege (its message names one, or a 403).
   */
  | { readonly kind: "refused"; readonly status: number; readonly code?: number; readonly privilege?: boolean };

/**
 * A call's result: the orchestrator's answer, or why there is none (timed
 * out, unreachable, rate limited, or an answer that is not the orchestrator's
 * API: HTML, a redirect, a 5xx without an `error` body, a body that is not JSON).
 */
export type CallResult<A = unknown> = E.Either<OrchestratorError, Answer<A>>;

/**
 * How a call's caller reads a 2xx answer's bytes; its error ends the call as the orchestrator's answer would. It
 * answers `OrchestratorUnreachable` only for bytes that are not JSON (not the orchestrator's API).
 */
export type ReadAnswer<A> = (bytes: Uint8Array) => E.Either<OrchestratorError, A>;

/**
 * A list's 2xx answer read as it arrives, to overlap the transfer: `more` after each piece with every byte so far, then
 * `end`, whose answer holds none of the bytes (their buffer may take the next list's body).
 */
export interface AnswerReading<A> {
  readonly more: (prefix: Uint8Array) => void;
  readonly end: ReadAnswer<A>;
}

/** How a call reads a list's answer: a reading started per attempt (told the answer's length when it says one, else 0). */
export interface ListReader<A> {
  readonly start: (expectedBytes: number) => AnswerReading<A>;
}

type Attempt = (
  | { readonly done: CallResult<Uint8Array>; readonly reading?: AnswerReading<unknown> | undefined }
  /** Worth another attempt after `waitMs`, if that fits the deadline; `tookMs` is what this attempt cost. */
  | { readonly retry: OrchestratorError; readonly waitMs: number; readonly tookMs: number }
) & { readonly detail?: string };

const RETRYABLE_NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ECONNABORTED",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
]);
const TLS_TRUST_CODES = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_UNTRUSTED",
]);

const errorCode = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === "string") return code;
  return cause === undefined ? undefined : errorCode(cause);
};

/**
 * One reason for every way of not reaching the orchestrator's API (refused,
 * reset, fenced, an answer that is not the orchestrator's): telling them
 * apart would let an admin map ports behind this service. The detail goes
 * to the log (`PortalCallEvent.detail`).
 */
export const couldNotConnect = (method: PortalMethod) =>
  orchestratorUnreachable(`Could not connect to the orchestrator for ${method}.`);

/** Why a connection failed, in words an operator can act on; never a host, port or key. */
const transportReason = (method: PortalMethod, code: string | undefined): OrchestratorError => {
  if (code !== undefined && TLS_TRUST_CODES.has(code))
    return orchestratorUnreachable(
      `The orchestrator's TLS certificate is not trusted (${code}) for ${method}; if a private CA issued it, add that CA (SDWAN_ORCHESTRATOR_CA_FILE).`,
    );
  if (code !== undefined && (code.startsWith("CERT_") || code.startsWith("ERR_TLS_")))
    return orchestratorUnreachable(`The orchestrator's TLS certificate was refused (${code}) for ${method}.`);
  return couldNotConnect(method);
};

/** node-fetch, as this client calls it unless given another (the composition wraps it to trace each attempt). */
export const defaultFetch: FetchLike = (url, init) => nodeFetch(url, init);

// The orchestrator's error body, decoded, when the answer has one (an object with `error`).
const errorBodyOf = (parsed: unknown) =>
  typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && "error" in parsed
    ? O.some(ErrorBody.decode(parsed))
    : O.none;

// The body as text, as node-fetch's `text()` decodes it (a byte order mark dropped).
const utf8 = new TextDecoder();

export const parseJson = (bytes: Uint8Array): O.Option<unknown> =>
  O.tryCatch(() => JSON.parse(utf8.decode(bytes)) as unknown);

/** An error message that says the key lacks a privilege (the portal's "privileges check failed"): read, never repeated. */
const PRIVILEGE = /privilege|permission/i;

/** An answer the call found to be JSON (at most `PARSE_LIMIT_BYTES`), parsed. */
export const readJson: ReadAnswer<unknown> = (bytes) => E.right(O.toUndefined(parseJson(bytes)));

/** Whether a body is a JSON array, or nothing JSON at all, by its first byte past a byte order mark and white space. */
export const isArrayText = (bytes: Uint8Array): boolean => {
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09) at += 1;
  return bytes[at] === 0x5b;
};

export const describeAnswer = (answer: { readonly status: number; readonly code?: number | undefined }): string =>
  `HTTP ${answer.status}${answer.code === undefined ? "" : `, error code ${answer.code}`}`;

/** The portal calls of one client: `call` makes one, within a deadline `startDeadline` starts. */
export const createPortalTransport = (options: PortalOrchestratorOptions) => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retries = options.retries ?? DEFAULT_RETRIES;
  const backoffBaseMs = options.backoffBaseMs ?? 150;
  const { allowedHosts } = options;
  const fetch = options.fetch ?? defaultFetch;
  const random = options.random ?? Math.random;
  const { agent, close } = fencedAgents({ allowedHosts, ca: options.ca, maxSockets: 64 });

  const startDeadline = (): Deadline => ({ expiresAt: Date.now() + timeoutMs });

  /**
   * The least time a call that does not reach the orchestrator's API takes: the longest its retries' backoff can
   * be. A closed port is retried, a server that does not speak HTTP or answers 404 is not; answered no sooner
   * than this (within the deadline), they take the same time, and no port can be told apart by it (issue 27).
   */
  const unreachableFloorMs = Array.from({ length: retries }, (_, retry) =>
    backoffDelay(retry, backoffBaseMs, timeoutMs, () => 1),
  ).reduce((sum, wait) => sum + wait, 0);
  const padUnreachable = async (
    result: CallResult,
    startedAt: number,
    deadline: Deadline,
    cancel: AbortSignal,
  ): Promise<void> => {
    if (E.isRight(result) || result.left._tag !== "OrchestratorUnreachable" || cancel.aborted) return;
    const waitMs = Math.min(startedAt + unreachableFloorMs, deadline.expiresAt) - Date.now();
    if (waitMs > 0) await sleep(waitMs, undefined, { signal: cancel }).catch(() => undefined);
  };

  /** One HTTP exchange of `exchange.request`, bounded by the deadline and by `cancel`. */
  const attempt = async (
    exchange: {
      readonly url: URL;
      readonly request: PortalRequest;
      readonly apiKey: string;
      readonly payload: string;
      readonly deadline: Deadline;
      readonly cancel: AbortSignal;
      readonly reader: ListReader<unknown> | undefined;
    },
    retryIndex: number,
  ): Promise<Attempt> => {
    const { url, request, deadline, cancel } = exchange;
    const { method, list } = request;
    const limitBytes = list === undefined ? PARSE_LIMIT_BYTES : LIST_LIMIT_BYTES;
    const started = Date.now();
    const timedOut = orchestratorTimedOut(
      `The orchestrator did not answer ${method} within the ${timeoutMs} ms deadline.`,
    );
    const remaining = deadline.expiresAt - started;
    if (remaining <= 0) return { done: E.left(timedOut) };
    // One controller for both causes: a composite of AbortSignal.any and AbortSignal.timeout was seen not to fire on Node 20.
    const controller = new AbortController();
    const abort = () => controller.abort();
    const timer = setTimeout(abort, remaining);
    cancel.addEventListener("abort", abort);
    const { signal } = controller;
    const retryAfter = (waitMs: O.Option<number>, error: OrchestratorError): Attempt => ({
      retry: error,
      waitMs: O.getOrElse(() => backoffDelay(retryIndex, backoffBaseMs, timeoutMs, random))(waitMs),
      tookMs: Date.now() - started,
    });
    try {
      const response = await fetch(url.href, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          authorization: `Token ${exchange.apiKey}`,
        },
        body: exchange.payload,
        signal,
        redirect: "manual",
        agent,
        size: limitBytes,
      });
      const { status } = response;
      const listed = list !== undefined && status >= 200 && status < 300;
      const room = Math.min(declaredLength(response), limitBytes);
      const reading = listed ? exchange.reader?.start(room) : undefined;
      // Read whole, even when unused, so the socket can be reused.
      const bytes = await readBody(response, room, limitBytes, reading?.more);
      // A list's array is no error body: its reader checks it an item at a time.
      if (listed && isArrayText(bytes)) return { done: E.right({ kind: "ok", status, value: bytes }), reading };
      // Parsed whole, so never past the parse limit (1 MiB of `[]` can take 24 MiB parsed): larger is not the API's.
      if (bytes.length > PARSE_LIMIT_BYTES)
        return { done: E.left(tooLarge(method, PARSE_LIMIT_BYTES, list === undefined ? "" : ` and not ${list}`)) };
      const parsed = parseJson(bytes);
      const errorBody = O.flatMap(errorBodyOf)(parsed);
      if (status >= 500 && O.isSome(errorBody) && E.isRight(errorBody.value))
        // The API answered that it failed ("Error parsing or processing request"): no verdict on the key, worth another try.
        return {
          ...retryAfter(
            parseRetryAfter(response.headers.get("retry-after"), Date.now()),
            orchestratorFailed(
              `The orchestrator failed to answer ${method} (${describeAnswer({ status, code: errorBody.value.right.error.code })}); it is the orchestrator's own error, not a refusal of the key.`,
            ),
          ),
          detail: `HTTP ${status} with the orchestrator's error body`,
        };
      if (O.isSome(errorBody) && E.isRight(errorBody.value) && status !== 429) {
        const { code, message } = errorBody.value.right.error;
        return {
          done: E.right({ kind: "refused", status, code, ...(PRIVILEGE.test(message) ? { privilege: true } : {}) }),
        };
      }
      if (status === 429) {
        const waitMs = O.getOrElse(() => RATE_LIMIT_PENALTY_MS)(
          parseRetryAfter(response.headers.get("retry-after"), Date.now()),
        );
        return retryAfter(
          O.some(waitMs),
          orchestratorRateLimited(
            `The orchestrator is rate limiting calls to ${method} (HTTP 429).`,
            Math.ceil(waitMs / 1000),
          ),
        );
      }
      if (status >= 500)
        return {
          ...retryAfter(parseRetryAfter(response.headers.get("retry-after"), Date.now()), couldNotConnect(method)),
          detail: `HTTP ${status} without the orchestrator's error body`,
        };
      if (status === 401 || status === 403)
        return { done: E.right({ kind: "refused", status, ...(status === 403 ? { privilege: true } : {}) }) };
      // Not the portal API: a web server without it, a login redirect (never followed: it could carry the key elsewhere), a page.
      if (status === 404)
        return {
          done: E.left(couldNotConnect(method)),
          detail: "HTTP 404: no such method; check the orchestrator URL",
        };
      if (status >= 300 && status < 400)
        return { done: E.left(couldNotConnect(method)), detail: `HTTP ${status} redirect, not followed` };
      if (O.isNone(parsed)) return { done: E.left(couldNotConnect(method)), detail: `HTTP ${status}, not JSON` };
      if (O.isSome(errorBody) && E.isLeft(errorBody.value))
        return {
          done: E.left(
            orchestratorGarbage(
              `The orchestrator's error answer to ${method} is malformed (${describeDecodeFailure(errorBody.value.left)}).`,
            ),
          ),
        };
      if (status < 200 || status >= 300)
        return {
          done: E.left(
            orchestratorGarbage(`The orchestrator answered ${method} with HTTP ${status} and no error body.`),
          ),
        };
      return { done: E.right({ kind: "ok", status, value: bytes }) };
    } catch (error) {
      if (cancel.aborted)
        return {
          done: E.left(
            orchestratorUnreachable(`The call to ${method} was cancelled: its answer was no longer needed.`),
          ),
        };
      if (signal.aborted) return { done: E.left(timedOut) };
      if (typeof error === "object" && error !== null && (error as { type?: unknown }).type === "max-size")
        return { done: E.left(tooLarge(method, limitBytes)) };
      const code = errorCode(error);
      const reason = transportReason(method, code);
      const detail = code ?? "network error";
      return code !== undefined && RETRYABLE_NETWORK_CODES.has(code)
        ? { ...retryAfter(O.none, reason), detail }
        : { done: E.left(reason), detail };
    } finally {
      clearTimeout(timer);
      cancel.removeEventListener("abort", abort);
    }
  };

  /** One portal call: attempts and retries, all inside `deadline`, then its 2xx answer read by `read`. */
  const call = async <A>(
    target: OrchestratorTarget,
    request: PortalRequest,
    deadline: Deadline,
    cancel: AbortSignal,
    read: ReadAnswer<A> | ListReader<A>,
  ): Promise<CallResult<A>> => {
    const { method } = request;
    const started = performance.now();
    const startedAt = Date.now();
    let attempts = 0;
    const finish = async (result: CallResult<A>, detail?: string): Promise<CallResult<A>> => {
      await padUnreachable(result, startedAt, deadline, cancel);
      const outcome: CallOutcome = cancel.aborted
        ? "cancelled"
        : E.isLeft(result)
          ? result.left._tag
          : result.right.kind === "refused"
            ? "refused"
            : "ok";
      options.onCall?.({
        method,
        outcome,
        durationMs: performance.now() - started,
        attempts,
        ...(detail === undefined ? {} : { detail }),
      });
      return result;
    };
    const url = portalUrl(target.orchestratorUrl, method);
    if (E.isLeft(url)) return finish(url);
    if (!isHostAllowed(url.right, allowedHosts))
      return finish(E.left(orchestratorRejected("The orchestrator host is not in SDWAN_ORCHESTRATOR_ALLOWED_HOSTS.")));
    // A fenced address written as such is never connected to (a name is checked once resolved, by the agents' lookup).
    if (E.isLeft(admitsHost(url.right.hostname, allowedHosts)))
      return finish(E.left(couldNotConnect(method)), "fenced destination (link-local or metadata)");
    const exchange = {
      url: url.right,
      request,
      apiKey: target.apiKey.reveal(),
      payload: JSON.stringify(request.body),
      deadline,
      cancel,
      reader: typeof read === "function" ? undefined : read,
    };
    // Retry only when the wait and one more attempt as long as the last can finish before the deadline.
    const policy = retry(
      handleWhenResult((result) => {
        const last = result as Attempt;
        return (
          "retry" in last &&
          (request.once !== true || last.retry._tag === "OrchestratorRateLimited") &&
          Date.now() + last.waitMs + last.tookMs <= deadline.expiresAt
        );
      }),
      {
        maxAttempts: retries,
        backoff: new DelegateBackoff((context) =>
          "value" in context.result ? (context.result.value as { waitMs: number }).waitMs : 0,
        ),
      },
    );
    const last = await policy.execute(({ attempt: retryIndex }) => {
      attempts += 1;
      return attempt(exchange, retryIndex);
    }, cancel);
    // The reason is the same however many attempts were made (the count would tell ports apart); `attempts` goes to onCall.
    if (!("done" in last)) return finish(E.left(last.retry), last.detail);
    const { done } = last;
    if (E.isLeft(done)) return finish(done, last.detail);
    if (done.right.kind === "refused") return finish(E.right(done.right), last.detail);
    const { status, value } = done.right;
    // Read as it arrived (the same reader's, so of `A`), or now.
    const reading = last.reading as AnswerReading<A> | undefined;
    const end = reading?.end ?? (typeof read === "function" ? read : read.start(value.length).end);
    const answer = E.map((decoded: A) => ({ kind: "ok", status, value: decoded }) as const)(end(value));
    // Read as it arrived into values and JSON of their own: its buffer may take the next body.
    if (reading !== undefined) doneWithBody(value);
    return finish(
      answer,
      E.isLeft(answer) && answer.left._tag === "OrchestratorUnreachable" ? `HTTP ${status}, not JSON` : undefined,
    );
  };

  return { startDeadline, call, close };
};
