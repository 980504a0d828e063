import {
  aroundTargetCalls,
  type CacheOutcome,
  type HealthState,
  type KeyExpiryCounts,
  type Orchestrator,
  type OrchestratorError,
} from "@sdwan-connections/core";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

// Methods outside this set are counted as OTHER, so clients cannot grow the label space.
const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]);

/**
 * The service's Prometheus metrics, in a registry of their own (one per app,
 * so several apps in one process, as in tests, never collide). Labels are
 * route patterns, statuses and outcomes: never aliases, URLs or keys.
 */
export const createMetrics = (options: { readonly defaultMetrics?: boolean } = {}) => {
  const registry = new Registry();
  // The event loop sampled every 100 ms (prom-client: every 10 ms, 100 wakeups a second of an idle service).
  if (options.defaultMetrics !== false)
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 });
  new Counter({
    name: "sdwan_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [registry],
    // The duration histogram's counts, copied at each scrape: a request is recorded once, not twice (profile of GET
    // /connections: this counter's own label hash and lookup were about half of the metrics' CPU per request).
    async collect() {
      const { values } = await httpDuration.get();
      this.reset();
      for (const { metricName, labels, value } of values)
        if (metricName === "sdwan_http_request_duration_seconds_count")
          this.inc(labels as Record<"method" | "route" | "status", string>, value);
    },
  });
  const httpDuration = new Histogram({
    name: "sdwan_http_request_duration_seconds",
    help: "Time to answer HTTP requests, by method, route pattern and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const orchestratorCalls = new Counter({
    name: "sdwan_orchestrator_calls_total",
    help: "Calls to orchestrators, by operation and outcome (ok or the error kind).",
    labelNames: ["operation", "outcome"] as const,
    registers: [registry],
  });
  const orchestratorDuration = new Histogram({
    name: "sdwan_orchestrator_call_duration_seconds",
    help: "Duration of calls to orchestrators, by operation.",
    labelNames: ["operation"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  // Counted in a plain record and copied at each scrape: a warm customers answer makes no label hash (profile of the
  // warm customers answer: the counter's `inc` was about 15 µs of its request path's JavaScript).
  const cacheLookups: Record<CacheOutcome, number> = { hit: 0, miss: 0, shared: 0 };
  new Counter({
    name: "sdwan_customers_cache_lookups_total",
    help: "Customers cache lookups: hit, miss, or shared (joined a call in flight).",
    labelNames: ["outcome"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, count] of Object.entries(cacheLookups)) this.inc({ outcome }, count);
    },
  });
  const loginFailures = new Counter({
    name: "sdwan_login_failures_total",
    help: "Requests refused for wrong credentials (401) or too many failures (429).",
    labelNames: ["status"] as const,
    registers: [registry],
  });

  // No alias label: /metrics needs no credentials, and aliases are the operators' business.
  const connectionHealth = new Gauge({
    name: "sdwan_connections_health",
    help: "Connections per background health state (valid, invalid, unreachable, unknown)",
    labelNames: ["state"],
    registers: [registry],
  });

  // Read at each scrape from the key-expiry watch's counts (set by `watchKeyExpiry`); never an alias.
  let keyExpiryCounts: (() => KeyExpiryCounts) | undefined;
  new Gauge({
    name: "sdwan_connections_keys_expiring",
    help: "Connections whose key expires (or expired) within the given days, as far as its expiry is known",
    labelNames: ["within_days"],
    registers: [registry],
    collect() {
      const counts = keyExpiryCounts?.() ?? { within7Days: 0, within30Days: 0 };
      this.set({ within_days: "7" }, counts.within7Days);
      this.set({ within_days: "30" }, counts.within30Days);
    },
  });

  // Read at each scrape from the event streams' own counts (set by `watchEventStreams`).
  let eventStreamCounts: (() => { readonly open: number; readonly replaying: number }) | undefined;
  new Gauge({
    name: "sdwan_event_streams",
    help: "Event streams (GET /events) open on this instance, and how many of them are replaying (catching up from Last-Event-ID)",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const counts = eventStreamCounts?.() ?? { open: 0, replaying: 0 };
      this.set({ state: "open" }, counts.open);
      this.set({ state: "replaying" }, counts.replaying);
    },
  });

  // The histogram's label child made once per combination, not a labels object per request.
  const requestSeries = new Map<string, (seconds: number) => void>();
  const recordRequest = (rawMethod: string, route: string, status: number, seconds: number): void => {
    const method = HTTP_METHODS.has(rawMethod) ? rawMethod : "OTHER";
    const key = `${method} ${route} ${status}`;
    let observe = requestSeries.get(key);
    if (observe === undefined) {
      const histogram = httpDuration.labels({ method, route, status: String(status) });
      observe = (s) => histogram.observe(s);
      requestSeries.set(key, observe);
    }
    observe(seconds);
  };

  return {
    registry,
    /** Counts and times one answered request; `route` is a pattern, never a concrete path. */
    recordRequest,
    loginFailures,
    /** Sets the count of connections in each health state. */
    setHealthCounts: (states: readonly HealthState[]): void => {
      for (const state of ["valid", "invalid", "unreachable", "unknown"] as const)
        connectionHealth.set({ state }, states.filter((s) => s === state).length);
    },
    /** Where `sdwan_connections_keys_expiring` reads its counts (the service's `keyExpiryWatch.counts`). */
    watchKeyExpiry: (counts: () => KeyExpiryCounts): void => {
      keyExpiryCounts = counts;
    },
    /** Where `sdwan_event_streams` reads its counts (the REST driver's event streams). */
    watchEventStreams: (counts: () => { readonly open: number; readonly replaying: number }): void => {
      eventStreamCounts = counts;
    },
    /** For `createCore({ onCustomersCacheLookup })`. */
    onCustomersCacheLookup: (outcome: CacheOutcome): void => {
      cacheLookups[outcome] += 1;
    },
    /** The orchestrator port, counting and timing each call. */
    instrumentOrchestrator: (orchestrator: Orchestrator): Orchestrator => {
      const timed =
        <A>(operation: string, task: TaskEither<OrchestratorError, A>): TaskEither<OrchestratorError, A> =>
        async () => {
          const stop = orchestratorDuration.startTimer({ operation });
          const result = await task();
          stop();
          orchestratorCalls.inc({ operation, outcome: result._tag === "Right" ? "ok" : result.left._tag });
          return result;
        };
      // Every call that asks the orchestrator, key renewal's included; the token list (read for a key's expiry, best
      // effort) is left out of the operation labels.
      return aroundTargetCalls(orchestrator, (call, _target, made) =>
        call === "listApiTokens" ? made : timed(call, made),
      );
    },
  };
};

export type Metrics = ReturnType<typeof createMetrics>;
