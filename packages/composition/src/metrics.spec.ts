import { ApiKey, type OrchestratorUrl } from "@sdwan-connections/core";
import { aJwt, createInMemoryOrchestrator } from "@sdwan-connections/core/testing";
import { describe, expect, it } from "vitest";
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
