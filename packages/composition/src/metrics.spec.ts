import { ApiKey, type OrchestratorUrl } from "@sdwan-connections/core";
import { aJwt, createInMemoryOrchestrator } from "@sdwan-connections/core/testing";
import type { Counter } from "prom-client";
import { describe, expect, it, vi } from "vitest";
import { createMetrics } from "./metrics.js";

describe("the orchestrator metrics", () => {
  it("count and time key renewal's calls by operation and outcome, naming no key", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const key = aJwt({ tokenUuid: "u" });
    const orchestrator = metrics.instrumentOrchestrator(
      createInMemoryOrchestrator([
        { apiKey: "customer-key", identity: { kind: "customer", customerId: 3 } },
        {
          apiKey: key,
          identity: { kind: "partner", partnerId: 4 },
          apiTokens: [{ id: 1, tokenUuid: "u", expiresAt: undefined }],
        },
      ]),
    );
    const at = (apiKey: string) => ({
      orchestratorUrl: "http://127.0.0.1:1/" as OrchestratorUrl,
      apiKey: ApiKey.unsafeFrom(apiKey),
    });
    const partner = { kind: "partner", partnerId: 4 } as const;
    await orchestrator.refreshApiToken(at("customer-key"))();
    await orchestrator.createApiToken(at(key), partner, { name: "x", lifetimeMs: 1000 })();
    await orchestrator.downloadApiToken(at(key), partner, 999)();
    await orchestrator.revokeApiToken(at(key), partner, 1)();
    const text = await metrics.registry.metrics();
    for (const line of [
      'sdwan_orchestrator_calls_total{operation="refreshApiToken",outcome="ok"} 1',
      'sdwan_orchestrator_calls_total{operation="createApiToken",outcome="ok"} 1',
      'sdwan_orchestrator_calls_total{operation="downloadApiToken",outcome="OrchestratorRejected"} 1',
      'sdwan_orchestrator_calls_total{operation="revokeApiToken",outcome="ok"} 1',
      'sdwan_orchestrator_call_duration_seconds_count{operation="revokeApiToken"} 1',
    ])
      expect(text).toContain(line);
    expect(text).not.toContain(key);
  });
});

describe("the request metrics", () => {
  it("record a request once, in the duration histogram: the request counter is its counts, read at each scrape", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const counter = metrics.registry.getSingleMetric("sdwan_http_requests_total") as Counter;
    const increments = vi.spyOn(counter, "inc");
    for (let i = 0; i < 100; i += 1) metrics.recordRequest("GET", "/x", 200, 0.002);
    metrics.recordRequest("BREW", "/x", 418, 0.5);
    // No counter's increment per request (the old code made one each): prom-client hashes its labels at every call.
    expect(increments).not.toHaveBeenCalled();
    increments.mockRestore();
    const first = await metrics.registry.metrics();
    expect(first).toContain('sdwan_http_requests_total{method="GET",route="/x",status="200"} 100');
    expect(first).toContain('sdwan_http_requests_total{method="OTHER",route="/x",status="418"} 1');
    expect(first).toContain(
      'sdwan_http_request_duration_seconds_bucket{le="0.0025",method="GET",route="/x",status="200"} 100',
    );
    expect(first).toContain('sdwan_http_request_duration_seconds_count{method="GET",route="/x",status="200"} 100');
    // A counter only grows: the next scrape counts what came since on top.
    for (let i = 0; i < 50; i += 1) metrics.recordRequest("GET", "/x", 200, 0.02);
    const second = await metrics.registry.metrics();
    expect(second).toContain('sdwan_http_requests_total{method="GET",route="/x",status="200"} 150');
    expect(second).toContain('sdwan_http_requests_total{method="OTHER",route="/x",status="418"} 1');
    expect(await metrics.registry.getMetricsAsJSON()).toContainEqual(
      expect.objectContaining({
        name: "sdwan_http_requests_total",
        values: expect.arrayContaining([expect.objectContaining({ value: 150 })]),
      }),
    );
  });
});

describe("the customers cache metric", () => {
  it("counts a lookup without the counter's increment (a label hash per warm answer); scrapes show every outcome", async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const counter = metrics.registry.getSingleMetric("sdwan_customers_cache_lookups_total") as Counter;
    expect(await metrics.registry.metrics()).toContain('sdwan_customers_cache_lookups_total{outcome="shared"} 0');
    const increments = vi.spyOn(counter, "inc");
    for (let i = 0; i < 100; i += 1) metrics.onCustomersCacheLookup("hit");
    metrics.onCustomersCacheLookup("miss");
    // The old code called `inc` once per lookup (101 here).
    expect(increments).not.toHaveBeenCalled();
    increments.mockRestore();
    const first = await metrics.registry.metrics();
    expect(first).toContain('sdwan_customers_cache_lookups_total{outcome="hit"} 100');
    expect(first).toContain('sdwan_customers_cache_lookups_total{outcome="miss"} 1');
    expect(first).toContain('sdwan_customers_cache_lookups_total{outcome="shared"} 0');
    for (let i = 0; i < 50; i += 1) metrics.onCustomersCacheLookup("hit");
    expect(await metrics.registry.metrics()).toContain('sdwan_customers_cache_lookups_total{outcome="hit"} 150');
  });
});
