import { expect, it } from "vitest";
import { startOrchestratorSimulator } from "../src/index.js";

// The README's in-process example, kept runnable.
it("runs the README example", async () => {
  await using simulator = await startOrchestratorSimulator({ prefix: "/vco" });
  expect(simulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/vco\/$/);
  simulator.setFault("sample-partner-key-1", { kind: "rateLimit", retryAfter: "1", times: 2 });
  simulator.setFault("*", { kind: "delay", ms: 500, method: "enterprise/getEnterprise" });
  const post = () =>
    fetch(`${simulator.url}portal/rest/enterpriseProxy/getEnterpriseProxyProperty`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Token sample-partner-key-1" },
      body: "{}",
    });
  expect((await post()).status).toBe(429);
  expect((await post()).status).toBe(429);
  expect((await post()).status).toBe(200);
  expect(simulator.callsFor("sample-partner-key-1")["enterpriseProxy/getEnterpriseProxyProperty"]).toBe(3);
  expect(simulator.calls.total).toBe(3);
  expect(simulator.requests).toHaveLength(3);
  simulator.resetCalls();
  expect(simulator.calls.total).toBe(0);
});
