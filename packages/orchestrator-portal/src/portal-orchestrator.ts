import { Agent as HttpAgent } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { rootCertificates } from "node:tls";
import { DelegateBackoff, handleWhenResult, retry } from "cockatiel";
import * as E from "fp-ts/lib/Either.js";
import * as O from "fp-ts/lib/Option.js";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import nodeFetch from "node-fetch";
import {
  admitsDestination,
  orchestratorFailed,
  orchestratorGarbage,
  orchestratorRateLimited,
  orchestratorRejected,
  orchestratorTimedOut,
  orchestratorUnreachable,
  type ApiToken,
  type CustomerList,
  type Deadline,
  type Identity,
  type Orchestrator,
  type OrchestratorError,
  type OrchestratorTarget,
} from "@sdwan-connections/core";
import { fencedLookup } from "./fence.js";
import { backoffDelay, parseRetryAfter } from "./retry.js";
import { isHostAllowed, isHostListed, portalUrl, type PortalMethod } from "./url.js";
import {
  readCustomersByEnterprise,
  readCustomersJson,
  type CustomersBound,
  type Refusal,
} from "./customers-json/scanner.js";
import {
  ApiTokens,
  describeDecodeFailure,
  EnterpriseIdentity,
  ErrorBody,
  PARSE_LIMIT_BYTES,
  ProxyProperty,
  toApiTokens,
} from "./wire.js";

/** The part of a fetch response this client reads (node-fetch's and WHATWG's both fit). */
export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  /** The body's bytes (node-fetch's, bounded by the response limit). */
  arrayBuffer(): Promise<ArrayBuffer>;
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
    /** The most bytes of body read (node-fetch's option; others may ignore it: the body's size is checked after). */
    readonly size: number;
  },
) => Promise<FetchResponse>;

/**
 * How one portal call ended, for metrics: "ok", "refused" (by the
 * orchestrator), "cancelled" (its answer was no longer needed), or the error's tag.
 */
export type CallOutcome = "ok" | "refused" | "cancelled" | OrchestratorError["_tag"];

export interface PortalCallEvent {
  readonly method: PortalMethod;
  readonly outcome: CallOutcome;
  /** From the first attempt to the final answer, waits included. */
  readonly durationMs: number;
  readonly attempts: number;
  /**
   * What the last attempt met when it "could not connect" (a network error's
   * code, or the kind of answer that is not the orchestrator's) or the
   * orchestrator failed: for the log only, with `attempts`, since answers
   * tell these apart no more and count no attempts (they would map ports).
   */
  readonly detail?: string;
}

export interface PortalOrchestratorOptions {
  /**
   * The deadline of one request's orchestrator work (docs/interface.md §6
   * `SDWAN_ORCHESTRATOR_TIMEOUT_MS`): both identification checks, every
   * attempt and every wait. Default 10 000.
   */
  readonly timeoutMs?: number;
  /** Retries after the first attempt, on 429, any 5xx (with or without the orchestrator's `error` body), and a dropped connection; default 2. */
  readonly retries?: number;
  /** First backoff step; default 150 ms, doubling, with jitter. */
  readonly backoffBaseMs?: number;
  /** Orchestrator host names allowed, lower-cased, IPv6 without brackets (`SDWAN_ORCHESTRATOR_ALLOWED_HOSTS`); omitted means any host. */
  readonly allowedHosts?: readonly string[] | undefined;
  /** How large a partner's customers may be; an answer beyond it is garbage. Default `DEFAULT_CUSTOMERS_BOUND`. */
  readonly customersBound?: CustomersBound;
  /** Extra certificate authorities (PEM) trusted for https orchestrators, beside Node's own roots. */
  readonly ca?: readonly string[];
  readonly fetch?: FetchLike;
  /** Called once per portal call (after its retries); for metrics. Carries no key and no URL. */
  readonly onCall?: (event: PortalCallEvent) => void;
  readonly random?: () => number;
}

/** core's Orchestrator port, plus `close()` to free the keep-alive sockets. */
export interface PortalOrchestrator extends Orchestrator {
  close(): void;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_RETRIES = 2;
/** The vendor's documented rate-limit penalty: a 429 without Retry-After means this long. */
const RATE_LIMIT_PENALTY_MS = 5_000;
/** How long a customer check no longer needed (the key is a partner's) may still take before it is cancelled. */
const CUSTOMER_GRACE_MS = 1_000;
/** The most bytes a list may take; any other answer may take `PARSE_LIMIT_BYTES`, as it is parsed whole. */
const LIST_LIMIT_BYTES = 64 * 1024 * 1024;
/**
 * docs/interface.md §6: 100,000 enterprises (twice the largest partner benchmarked) and 32 MiB of customers'
 * JSON (50,000 customers as the simulator makes them take 22.5 MiB), so a cold listing at the bound stays well
 * within the deployment's 512 MiB (docs/benchmarks.md, "customers bound").
 */
export const DEFAULT_CUSTOMERS_BOUND: CustomersBound = { enterprises: 100_000, replyBytes: 32 * 1024 * 1024 };

/** Why a listing is refused: over a bound (which one, and the setting that sets it; never a value from the answer), or not a list of enterprises (io-ts's reason, field names only). */
const refused = (refusal: Refusal, bound: CustomersBound): OrchestratorError =>
  orchestratorGarbage(
    refusal === "enterprises"
      ? `The orchestrator's answer to getEnterpriseProxyEnterprises lists more than ${bound.enterprises} enterprises, the bound SDWAN_CUSTOMERS_MAX_ENTERPRISES sets.`
      : refusal === "replyBytes"
        ? `The customers of the orchestrator's answer to getEnterpriseProxyEnterprises take more than ${bound.replyBytes} bytes of JSON, the bound SDWAN_CUSTOMERS_MAX_REPLY_BYTES sets.`
        : `The orchestrator's answer to getEnterpriseProxyEnterprises is not a list of enterprises: ${refusal.invalid}.`,
  );

const tooLarge = (method: PortalMethod, limitBytes: number, what = ""): OrchestratorError =>
  orchestratorGarbage(`The orchestrator's answer to ${method} is larger than ${limitBytes / 2 ** 20} MiB${what}.`);

/** One portal call: its method and body, and whether its answer is a list. */
interface PortalRequest {
  readonly method: PortalMethod;
  readonly body: unknown;
  /**
   * What the answer is, if it is a list (as reasons name it): it may then take up to `LIST_LIMIT_BYTES`, and a 2xx
   * JSON array is answered unparsed, for the caller to read an item at a time; any other answer past
   * `PARSE_LIMIT_BYTES` is garbage.
   */
  readonly list?: string;
}

/** What the orchestrator itself answered to one portal call. */
type Answer<A> =
  /** A 2xx JSON body without an `error` member (a list's array: unparsed), as the caller read it. */
  | { readonly kind: "ok"; readonly status: number; readonly value: A }
  /** Its `error` body at any status below 500 but 429 (code only: its message is not ours to repeat), or a bare 401/403. */
  | { readonly kind: "refused"; readonly status: number; readonly code?: number };

/**
 * A call's result: the orchestrator's answer, or why there is none (timed
 * out, unreachable, rate limited, or an answer that is not the orchestrator's
 * API: HTML, a redirect, a 5xx without an `error` body, a body that is not JSON).
 */
type CallResult<A = unknown> = E.Either<OrchestratorError, Answer<A>>;

/**
 * How a call's caller reads a 2xx answer's bytes; its error ends the call as the orchestrator's answer would. It
 * answers `OrchestratorUnreachable` only for bytes that are not JSON (not the orchestrator's API).
 */
type ReadAnswer<A> = (bytes: Uint8Array) => E.Either<OrchestratorError, A>;

type Attempt = (
  | { readonly done: CallResult<Uint8Array> }
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
const couldNotConnect = (method: PortalMethod) =>
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

const parseJson = (bytes: Uint8Array): O.Option<unknown> => O.tryCatch(() => JSON.parse(utf8.decode(bytes)) as unknown);

const LISTING = "enterpriseProxy/getEnterpriseProxyEnterprises";
const ENTERPRISES = "a list of enterprises";

/** An answer the call found to be JSON (at most `PARSE_LIMIT_BYTES`), parsed. */
const readJson: ReadAnswer<unknown> = (bytes) => E.right(O.toUndefined(parseJson(bytes)));

/** A token list's answer, decoded (bytes that are not JSON are not the orchestrator's API). */
const readApiTokens =
  (method: PortalMethod): ReadAnswer<readonly ApiToken[]> =>
  (bytes) => {
    const parsed = parseJson(bytes);
    if (O.isNone(parsed)) return E.left(couldNotConnect(method));
    const decoded = ApiTokens.decode(parsed.value);
    return E.isRight(decoded)
      ? E.right(toApiTokens(decoded.right))
      : E.left(
          orchestratorGarbage(
            `The orchestrator's answer to ${method} is not a list of API tokens (${describeDecodeFailure(decoded.left)}).`,
          ),
        );
  };

/** Whether a body is a JSON array, or nothing JSON at all, by its first byte past a byte order mark and white space. */
const isArrayText = (bytes: Uint8Array): boolean => {
  let at = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (bytes[at] === 0x20 || bytes[at] === 0x0a || bytes[at] === 0x0d || bytes[at] === 0x09) at += 1;
  return bytes[at] === 0x5b;
};

/**
 * core's Orchestrator over the portal REST API v1.
 *
 * - Every call is `POST {orchestratorUrl}/portal/rest/{method}` with
 *   `Authorization: Token <key>`, over a keep-alive agent; redirects are not
 *   followed (they could carry the key elsewhere). TLS is always verified;
 *   `ca` adds private CAs to Node's roots.
 * - One deadline (`timeoutMs`) bounds all the work of one request: each
 *   attempt is aborted when it runs out, and a retry (429, any 5xx, a
 *   dropped connection; jittered exponential
 *   backoff, `Retry-After` honoured, a bare 429 meaning the vendor's 5 s
 *   penalty) happens only when its wait and one more attempt as long as the
 *   last fit before it. A wait that does not fit fails at once, passing the
 *   wait on (`retryAfterSeconds`).
 * - Identification asks the partner check and the customer check at once,
 *   as the original plugin does (`identityOf`).
 * - Answers are decoded; reasons name statuses, codes and field names, never
 *   the key, a header or a value from the answer.
 */
export const createPortalOrchestrator = (options: PortalOrchestratorOptions = {}): PortalOrchestrator => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retries = options.retries ?? DEFAULT_RETRIES;
  const backoffBaseMs = options.backoffBaseMs ?? 150;
  const { allowedHosts } = options;
  const fetch = options.fetch ?? defaultFetch;
  const random = options.random ?? Math.random;
  const customersBound = options.customersBound ?? DEFAULT_CUSTOMERS_BOUND;
  /** A listing's answer: the byte scanner first; when it declines, the general path (an enterprise at a time: JSON.parse, io-ts, toCustomer) decides. */
  const readCustomers: ReadAnswer<CustomerList> = (bytes) => {
    if (!isArrayText(bytes))
      return E.left(
        orchestratorGarbage(
          "The orchestrator's answer to getEnterpriseProxyEnterprises is not a list of enterprises: the answer is not an array.",
        ),
      );
    const scanned = readCustomersJson(bytes, customersBound);
    const read =
      E.isRight(scanned) && O.isNone(scanned.right) ? readCustomersByEnterprise(bytes, customersBound) : scanned;
    if (E.isLeft(read)) return E.left(refused(read.left, customersBound));
    // Neither read it, so it is not JSON: as any answer that is not, too large to parse whole or not the API.
    return E.fromOption(() =>
      bytes.length > PARSE_LIMIT_BYTES
        ? tooLarge(LISTING, PARSE_LIMIT_BYTES, ` and not ${ENTERPRISES}`)
        : couldNotConnect(LISTING),
    )(read.right);
  };
  /** Link-local and metadata destinations are refused, unless the allowlist names the host itself. */
  const admitsHost = (hostname: string): E.Either<string, void> => {
    const admitted = admitsDestination(hostname);
    return E.isRight(admitted) || isHostListed(hostname, allowedHosts)
      ? E.right(undefined)
      : E.left(`${admitted.left}: refused unless SDWAN_ORCHESTRATOR_ALLOWED_HOSTS names it`);
  };
  const lookup = fencedLookup(allowedHosts);
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64, lookup });
  const httpsAgent = new HttpsAgent({
    keepAlive: true,
    maxSockets: 64,
    lookup,
    ...(options.ca === undefined || options.ca.length === 0 ? {} : { ca: [...rootCertificates, ...options.ca] }),
  });
  const agent = (url: URL): HttpAgent => (url.protocol === "https:" ? httpsAgent : httpAgent);

  const startDeadline = (): Deadline => ({ expiresAt: Date.now() + timeoutMs });

  /**
   * The least time a call that does not reach the orchestrator's API takes: the longest its retries' waits can
   * be. A closed port is retried, a server that does not speak HTTP or answers 404 is not; answered no sooner
   * than this (within the deadline), they take the same time, and no port can be told apart by it (issue 27).
   */
  const unreachableFloorMs = Array.from({ length: retries }, (_, retry) =>
    Math.min(timeoutMs, backoffBaseMs * 2 ** retry),
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
      // Read whole, even when unused, so the socket can be reused.
      const bytes = new Uint8Array(await response.arrayBuffer());
      // A list's array is no error body: its reader checks it an item at a time.
      if (list !== undefined && status >= 200 && status < 300 && isArrayText(bytes))
        return { done: E.right({ kind: "ok", status, value: bytes }) };
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
      if (O.isSome(errorBody) && E.isRight(errorBody.value) && status !== 429)
        return { done: E.right({ kind: "refused", status, code: errorBody.value.right.error.code }) };
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
      if (status === 401 || status === 403) return { done: E.right({ kind: "refused", status }) };
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
    read: ReadAnswer<A>,
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
    // A fenced address written as such is never connected to (a name is checked once resolved: see `lookup`).
    if (E.isLeft(admitsHost(url.right.hostname)))
      return finish(E.left(couldNotConnect(method)), "fenced destination (link-local or metadata)");
    const exchange = {
      url: url.right,
      request,
      apiKey: target.apiKey.reveal(),
      payload: JSON.stringify(request.body),
      deadline,
      cancel,
    };
    // Retry only when the wait and one more attempt as long as the last can finish before the deadline.
    const policy = retry(
      handleWhenResult((result) => {
        const last = result as Attempt;
        return "retry" in last && Date.now() + last.waitMs + last.tookMs <= deadline.expiresAt;
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
    const answer = E.map((decoded: A) => ({ kind: "ok", status, value: decoded }) as const)(read(value));
    return finish(
      answer,
      E.isLeft(answer) && answer.left._tag === "OrchestratorUnreachable" ? `HTTP ${status}, not JSON` : undefined,
    );
  };

  const identify =
    (target: OrchestratorTarget, deadline: Deadline = startDeadline()): TaskEither<OrchestratorError, Identity> =>
    async () => {
      // Both checks at once (a customer's key costs one round trip); the partner check shares the customer check's
      // signal, which is only ever aborted once the partner check has answered.
      const customerNotNeeded = new AbortController();
      const asked = call(
        target,
        { method: "enterpriseProxy/getEnterpriseProxyProperty", body: {} },
        deadline,
        customerNotNeeded.signal,
        readJson,
      );
      const customer = call(
        target,
        { method: "enterprise/getEnterprise", body: {} },
        deadline,
        customerNotNeeded.signal,
        readJson,
      );
      const partner = await asked;
      const partnerId = partnerIdOf(partner);
      if (partnerId === undefined) return identityOf(partner, await customer);
      // A partner's id settles it. The customer check's answer, not needed, is usually on its way: it is let arrive
      // for a moment, not aborted at once, since an abort destroys its keep-alive socket (a new connection and an
      // AbortError per identification: a third of a health round's CPU in its profile, issue 40).
      const grace = setTimeout(() => customerNotNeeded.abort(), CUSTOMER_GRACE_MS).unref();
      const settled = () => clearTimeout(grace);
      void customer.then(settled, settled);
      return E.right({ kind: "partner", partnerId });
    };

  const listPartnerCustomers =
    (
      target: OrchestratorTarget,
      partnerId: number,
      deadline: Deadline = startDeadline(),
    ): TaskEither<OrchestratorError, CustomerList> =>
    async () => {
      const answer = await call(
        target,
        { method: LISTING, body: { enterpriseProxyId: partnerId }, list: ENTERPRISES },
        deadline,
        new AbortController().signal,
        readCustomers,
      );
      if (E.isLeft(answer)) return answer;
      const { right } = answer;
      if (right.kind === "ok") return E.right(right.value);
      // A success status with an error member contradicts itself: garbage. Otherwise it is a refusal.
      return right.status < 300
        ? E.left(
            orchestratorGarbage(
              `The orchestrator answered getEnterpriseProxyEnterprises with HTTP ${right.status} and an error member (code ${right.code}).`,
            ),
          )
        : E.left(
            orchestratorRejected(
              `The orchestrator refused to list partner ${partnerId}'s customers (${describeAnswer(right)}).`,
            ),
          );
    };

  const listApiTokens =
    (
      target: OrchestratorTarget,
      identity: Identity,
      deadline: Deadline = startDeadline(),
    ): TaskEither<OrchestratorError, readonly ApiToken[]> =>
    async () => {
      const request: PortalRequest =
        identity.kind === "partner"
          ? { method: "enterpriseProxy/getApiTokens", body: { enterpriseProxyId: identity.partnerId } }
          : { method: "enterprise/getApiTokens", body: { enterpriseId: identity.customerId } };
      const answer = await call(target, request, deadline, new AbortController().signal, readApiTokens(request.method));
      if (E.isLeft(answer)) return answer;
      const { right } = answer;
      if (right.kind === "ok") return E.right(right.value);
      return right.status < 300
        ? E.left(
            orchestratorGarbage(
              `The orchestrator answered ${request.method} with HTTP ${right.status} and an error member (code ${right.code}).`,
            ),
          )
        : E.left(
            orchestratorRejected(
              `The orchestrator refused to list the API tokens (${describeAnswer(right)}); the key may not read them.`,
            ),
          );
    };

  return {
    startDeadline,
    admits: (orchestratorUrl) => {
      const url = portalUrl(orchestratorUrl, "enterprise/getEnterprise");
      return E.isLeft(url) ? E.left(url.left.reason) : admitsHost(url.right.hostname);
    },
    identify,
    listPartnerCustomers,
    listApiTokens,
    close: () => {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
};

const partnerIdOf = (result: CallResult): number | undefined => {
  if (E.isLeft(result) || result.right.kind !== "ok") return undefined;
  const decoded = ProxyProperty.decode(result.right.value);
  return E.isRight(decoded) ? decoded.right.enterpriseProxyId : undefined;
};

const describeAnswer = (answer: { readonly status: number; readonly code?: number | undefined }): string =>
  `HTTP ${answer.status}${answer.code === undefined ? "" : `, error code ${answer.code}`}`;

/** One check's result in a few words, for a reason that names both checks. */
const describeCheck = (result: CallResult, expected: string): string => {
  if (E.isLeft(result)) return result.left.reason.replace(/\.$/, "");
  return result.right.kind === "refused" ? describeAnswer(result.right) : `HTTP 200 without ${expected}`;
};

/** A check that got no answer from the orchestrator's API: it timed out, could not connect, or the orchestrator failed. */
const gotNoAnswer = (result: CallResult): result is E.Left<OrchestratorError> =>
  E.isLeft(result) &&
  (result.left._tag === "OrchestratorTimedOut" ||
    result.left._tag === "OrchestratorUnreachable" ||
    result.left._tag === "OrchestratorFailed");

/**
 * The identity that the two checks' results give, as the original plugin
 * decides it (docs/interface.md §4; every case is in docs/orchestrator-compatibility.md):
 * - a partner, if the partner check gave a proxy id; any other answer of it
 *   only means "not a partner";
 * - else a customer, if the customer check gave an enterprise id;
 * - else rate limited, if either check was (its wait did not fit);
 * - if the customer check refused the key (as it refuses every partner key):
 *   the partner check's outcome when it got no answer (timed out, could not
 *   connect, the orchestrator failed), else rejected;
 * - else garbage, if the customer check succeeded without an id;
 * - else the customer check's error (timed out, could not connect, failed, garbage).
 * Every reason but a lone one names both checks' outcomes.
 */
const identityOf = (partner: CallResult, customer: CallResult): E.Either<OrchestratorError, Identity> => {
  const partnerId = partnerIdOf(partner);
  if (partnerId !== undefined) return E.right({ kind: "partner", partnerId });
  if (E.isRight(customer) && customer.right.kind === "ok") {
    const decoded = EnterpriseIdentity.decode(customer.right.value);
    if (E.isRight(decoded)) return E.right({ kind: "customer", customerId: decoded.right.id });
  }
  const rateLimited = [customer, partner].flatMap((result) =>
    E.isLeft(result) && result.left._tag === "OrchestratorRateLimited" ? [result.left] : [],
  );
  if (rateLimited[0] !== undefined) return E.left(rateLimited[0]);
  const partnerCheck = `getEnterpriseProxyProperty: ${describeCheck(partner, "enterpriseProxyId")}`;
  const customerCheck = `getEnterprise: ${describeCheck(customer, "id")}`;
  const withoutStop = (error: OrchestratorError) => error.reason.replace(/\.$/, "");
  if (E.isRight(customer) && customer.right.kind === "refused") {
    if (gotNoAnswer(partner))
      return E.left({
        ...partner.left,
        reason: `${withoutStop(partner.left)}, so it is not known whether the API key is a partner's; the customer check (${customerCheck}) refused it, as it refuses every partner's key.`,
      });
    return E.left(
      orchestratorRejected(
        `The orchestrator accepts the API key neither as a partner's (${partnerCheck}) nor as a customer's (${customerCheck}).`,
      ),
    );
  }
  if (E.isRight(customer)) return E.left(orchestratorGarbage("The orchestrator's answer to getEnterprise lacks id."));
  // The customer check decides once the partner check said "not a partner"; with neither answered, the reason is the same whatever was met.
  if (E.isRight(partner))
    return E.left({
      ...customer.left,
      reason: `${withoutStop(customer.left)}, so it is not known whether the API key is a customer's; the partner check (${partnerCheck}) did not accept it as a partner's.`,
    });
  return customer;
};
