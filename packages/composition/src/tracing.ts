/**
 * OpenTelemetry traces (docs/interface.md §7, "Traces"; the variables in §6): loaded by the REST service's `compose`
 * only when the configuration turns them on, so with them off none of this module, nor the SDK, is loaded, and
 * nothing is wrapped. Every span is made at a seam the composition already owns (the store's face, the orchestrator
 * port and its fetch, the webhook sender) or at the REST driver's first middleware; core knows nothing of it.
 * Attributes name operations, routes, hosts, statuses and error kinds: never an alias, a URL's path or query, a
 * header, a key, a token, a secret or a body.
 */
import type { IncomingHttpHeaders } from "node:http";
import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { setGlobalErrorHandler, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from "@opentelemetry/sdk-trace";
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from "@opentelemetry/semantic-conventions";
import {
  aroundTargetCalls,
  type Orchestrator,
  type Storage,
  type WebhookAnswer,
  type WebhookSender,
} from "@sdwan-connections/core";
import type { FetchLike } from "@sdwan-connections/orchestrator-portal";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import type { Config, TracingConfig } from "./config.js";
import type { LogSink } from "./log-sink.js";

/** The spans the service makes; `openTracing` answers one when the configuration turns traces on. */
export interface Tracing {
  /**
   * One incoming request as a server span, its parent the caller's `traceparent` if any: `proceed` runs inside it
   * and is handed `end`, which names the route pattern and status once the answer is sent (or cut off), and the
   * trace's id (for the request's log line).
   */
  serveRequest(
    method: string,
    headers: IncomingHttpHeaders,
    proceed: (end: (route: string, status: number) => void, traceId: string) => void,
  ): void;
  /** Each store call a span (a child of the work that made it: the relay's idle polls make none). */
  traceStorage(storage: Storage, system: Config["storage"]): Storage;
  /** Each orchestrator call (`identify`, a customers listing, a tokens listing) a span. */
  traceOrchestrator(orchestrator: Orchestrator): Orchestrator;
  /** Each HTTP attempt to an orchestrator a client span, its `traceparent` sent along. */
  traceFetch(fetch: FetchLike): FetchLike;
  /** Each webhook POST a client span, a trace of its own, its `traceparent` sent to the receiver. */
  traceWebhookSender(sender: WebhookSender): WebhookSender;
  /** Sends the spans still waiting, then stops. */
  shutdown(): Promise<void>;
}

/** A collector that does not answer is said once a minute at most, not at every batch. */
const EXPORT_FAILURE_LOG_MS = 60_000;

// Methods outside this set are named _OTHER (the semantic conventions' word), so clients cannot grow the span names.
const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]);

const samplerOf = ({ name, ratio }: TracingConfig["sampler"]): Sampler => {
  const root = name.endsWith("always_on")
    ? new AlwaysOnSampler()
    : name.endsWith("always_off")
      ? new AlwaysOffSampler()
      : new TraceIdRatioBasedSampler(ratio);
  return name.startsWith("parentbased_") ? new ParentBasedSampler({ root }) : root;
};

/** The methods of a port that answer a `TaskEither` or a promise: the store calls a span is made for. */
type StoreCalls<P> = {
  [K in keyof P]: P[K] extends (...args: never[]) => TaskEither<unknown, unknown> | Promise<unknown> ? K : never;
}[keyof P];

/** How a store call answers: a TaskEither (run later, its span from the run) or a promise (under way at the call). */
type CallKind<F> = F extends (...args: never[]) => TaskEither<unknown, unknown> ? "task" : "promise";

/**
 * Every store call, per field of the store's face, with how it answers: a port given a new call (or the face a new
 * port) does not compile until it is named here, so no call goes untraced by omission.
 */
const STORE_CALLS: {
  readonly [F in Exclude<keyof Storage, "close">]: { readonly [K in StoreCalls<Storage[F]>]: CallKind<Storage[F][K]> };
} = {
  repository: {
    get: "task",
    list: "task",
    insert: "task",
    update: "task",
    delete: "task",
    ping: "task",
    resealKeys: "task",
  },
  changes: { publish: "promise" },
  fingerprints: {},
  audit: { record: "task", list: "task", listAfter: "task", subscribe: "task" },
  health: { claim: "task", record: "task", claimKeyWarning: "task", forget: "task", list: "task" },
  renewals: { acquire: "task", save: "task", release: "task", list: "task" },
  failures: { add: "task", remove: "task", peek: "task" },
  serviceTokens: { create: "task", list: "task", find: "task", renew: "task", revoke: "task", touch: "task" },
  grants: { list: "task", add: "task", remove: "task" },
  webhooks: {
    create: "task",
    list: "task",
    get: "task",
    remove: "task",
    claim: "task",
    settle: "task",
    deliveries: "task",
    redeliver: "task",
    secrets: "task",
    resealSecrets: "task",
  },
};

const hostAndPort = (raw: string): Attributes => {
  try {
    const url = new URL(raw);
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
    return { [ATTR_SERVER_ADDRESS]: url.hostname, [ATTR_SERVER_PORT]: port };
  } catch {
    return {};
  }
};

/** Ends a span with an error kind (a tag or a code, never a message: messages may quote what was sent). */
const endWith = (span: Span, errorType: string | undefined): void => {
  if (errorType !== undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
};

/** A TaskEither's run inside a span of its own: its Left's tag is the error kind. */
const inSpan =
  <E extends { readonly _tag: string }, A>(
    tracer: Tracer,
    name: string,
    attributes: Attributes,
    task: TaskEither<E, A>,
    kind: SpanKind = SpanKind.INTERNAL,
  ): TaskEither<E, A> =>
  () =>
    tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
      try {
        const result = await task();
        endWith(span, result._tag === "Left" ? result.left._tag : undefined);
        return result;
      } catch (error) {
        endWith(span, (error as Error).name);
        throw error;
      }
    });

/**
 * The span exporter (OTLP/HTTP, JSON; `exporter` in tests), processor and provider for the configuration, with the
 * W3C trace context propagator. Failed exports are logged (a minute apart at most), never the spans or the headers.
 */
export const openTracing = (
  config: TracingConfig,
  { logger, exporter: given }: { readonly logger: LogSink; readonly exporter?: SpanExporter },
): Tracing => {
  // The one context manager of the process (AsyncLocalStorage); an embedder's own, already set, is kept.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  let loggedAt = -Infinity;
  const report = (error: unknown) => {
    if (Date.now() - loggedAt < EXPORT_FAILURE_LOG_MS) return;
    loggedAt = Date.now();
    // The error's kind and first words: an exporter's message names the status, not what was sent.
    const problem = error instanceof Error ? `${error.name}: ${error.message.slice(0, 200)}` : "unknown";
    logger.warn({ problem, endpoint: new URL(config.endpoint).origin }, "traces not exported");
  };
  setGlobalErrorHandler(report);
  const exporter =
    given ??
    new OTLPTraceExporter({
      url: config.endpoint,
      headers: config.headers(),
      timeoutMillis: config.timeoutMs,
      // The exporter's CompressionAlgorithm enum, whose values are these very strings.
      compression: config.compression as never,
    });
  const provider = new TracerProvider({
    resource: resourceFromAttributes(config.resource),
    sampler: samplerOf(config.sampler),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: config.batchDelayMs })],
  });
  // The provider's own tracer, not the global one: two services in one process (tests) keep their own exports.
  const tracer = provider.getTracer("sdwan-connections");
  const propagator = new W3CTraceContextPropagator();
  /** The headers that carry the active span's context (`traceparent`, and `tracestate` when there is one). */
  const contextHeaders = (): Record<string, string> => {
    const carrier: Record<string, string> = {};
    propagator.inject(context.active(), carrier, defaultTextMapSetter);
    return carrier;
  };

  const traceCalls = <P extends object>(
    port: P,
    calls: Readonly<Record<string, "task" | "promise">>,
    attributes: Attributes,
    field: string,
  ): P => {
    const traced: Record<string, unknown> = {};
    for (const [method, kind] of Object.entries(calls)) {
      const call = (port as Record<string, (...args: unknown[]) => unknown>)[method];
      if (call === undefined) continue;
      const name = `${field}.${method}`;
      const spanAttributes = { ...attributes, [ATTR_DB_OPERATION_NAME]: name };
      // Only under a span (a request's, an orchestrator call's): the relay's idle polls make none.
      const inWork = () => trace.getSpan(context.active()) !== undefined;
      traced[method] =
        kind === "task"
          ? (...args: unknown[]) => {
              const task = call.apply(port, args) as TaskEither<{ _tag: string }, unknown>;
              return () => (inWork() ? inSpan(tracer, name, spanAttributes, task, SpanKind.CLIENT)() : task());
            }
          : (...args: unknown[]) =>
              inWork()
                ? tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes: spanAttributes }, async (span) => {
                    try {
                      const answer = await call.apply(port, args);
                      endWith(span, undefined);
                      return answer;
                    } catch (error) {
                      endWith(span, (error as Error).name);
                      throw error;
                    }
                  })
                : call.apply(port, args);
    }
    // The port's other members (subscriptions, synchronous calls, fields) as they are, called on the port itself.
    return new Proxy(port, {
      get: (target, key) => {
        const value: unknown = traced[key as string] ?? Reflect.get(target, key);
        return typeof value === "function" && !(key in traced) ? value.bind(target) : value;
      },
    });
  };

  return {
    serveRequest: (rawMethod, headers, proceed) => {
      const method = HTTP_METHODS.has(rawMethod) ? rawMethod : "_OTHER";
      const parent = propagator.extract(ROOT_CONTEXT, headers, defaultTextMapGetter);
      const span = tracer.startSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { [ATTR_HTTP_REQUEST_METHOD]: method } },
        parent,
      );
      context.with(trace.setSpan(parent, span), () =>
        proceed((route, status) => {
          span.updateName(`${method} ${route}`);
          span.setAttributes({ [ATTR_HTTP_ROUTE]: route, [ATTR_HTTP_RESPONSE_STATUS_CODE]: status });
          endWith(span, status >= 500 ? String(status) : undefined);
        }, span.spanContext().traceId),
      );
    },
    traceStorage: (storage, system) => {
      const attributes = { [ATTR_DB_SYSTEM_NAME]: system === "postgres" ? "postgresql" : system };
      const fields = Object.fromEntries(
        Object.entries(STORE_CALLS).map(([field, calls]) => [
          field,
          traceCalls(storage[field as keyof typeof STORE_CALLS], calls, attributes, field),
        ]),
      );
      return { ...storage, ...fields, close: () => storage.close() } as Storage;
    },
    traceOrchestrator: (orchestrator) =>
      aroundTargetCalls(orchestrator, (call, target, made) =>
        inSpan(tracer, `orchestrator ${call}`, hostAndPort(target.orchestratorUrl), made),
      ),
    traceFetch: (fetch) => (url, init) =>
      tracer.startActiveSpan(
        "POST",
        { kind: SpanKind.CLIENT, attributes: { [ATTR_HTTP_REQUEST_METHOD]: "POST", ...hostAndPort(url) } },
        async (span) => {
          try {
            const response = await fetch(url, { ...init, headers: { ...init.headers, ...contextHeaders() } });
            span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, response.status);
            endWith(span, response.status >= 400 ? String(response.status) : undefined);
            return response;
          } catch (error) {
            endWith(span, (error as { code?: string }).code ?? (error as Error).name);
            throw error;
          }
        },
      ),
    traceWebhookSender: (sender) => ({
      send: (request, timeoutMs) =>
        // A trace of its own: the relay's work is not the request's that happened to wake it.
        tracer.startActiveSpan(
          "POST webhook",
          {
            kind: SpanKind.CLIENT,
            root: true,
            attributes: { [ATTR_HTTP_REQUEST_METHOD]: "POST", ...hostAndPort(request.url) },
          },
          async (span) => {
            const answer: WebhookAnswer = await sender.send(
              { ...request, headers: { ...request.headers, ...contextHeaders() } },
              timeoutMs,
            );
            if (answer._tag === "answered") span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, answer.status);
            endWith(
              span,
              answer._tag === "failed" ? answer.error : answer.status >= 400 ? String(answer.status) : undefined,
            );
            return answer;
          },
        ),
    }),
    // The last batch's failure is said as the others are: a collector that is down never fails the service's stop.
    shutdown: () => provider.shutdown().catch(report),
  };
};
