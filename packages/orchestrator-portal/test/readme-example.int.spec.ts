import * as E from "fp-ts/lib/Either.js";
import { createCore, createInMemoryStorage } from "@sdwan-connections/core";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { expect, it } from "vitest";
import { createPortalOrchestrator } from "../src/index.js";

// The README's wiring example, against the simulator on port 0 instead of 8981.
it("runs the README wiring example; validation always asks, customer lists are cached", async () => {
  await using simulator = await startOrchestratorSimulator();
  const observed: string[] = [];
  const metrics = {
    observe: (method: string, outcome: string, _durationMs: number) => void observed.push(`${method} ${outcome}`),
  };

  const orchestrator = createPortalOrchestrator({
    timeoutMs: 10_000,
    onCall: ({ method, outcome, durationMs }) => metrics.observe(method, outcome, durationMs),
  });
  const service = createCore({ storage: createInMemoryStorage(), orchestrator });
  await service.connections.add({ alias: "lab", orchestratorUrl: simulator.url, apiKey: "sample-partner-key-1" })();
  const customers = await service.connections.customers("lab")();
  expect(E.isRight(customers) && customers.right.items).toHaveLength(180);

  // docs/interface.md §4: a second listing comes from core's cache; each validation asks the orchestrator again.
  simulator.resetCalls();
  await service.connections.customers("lab")();
  expect(simulator.calls.total).toBe(0);
  const first = await service.connections.validate("lab")();
  const second = await service.connections.validate("lab")();
  expect([first, second].map((v) => E.isRight(v) && v.right.valid)).toEqual([true, true]);
  expect(simulator.calls.byMethod["enterpriseProxy/getEnterpriseProxyProperty"]).toBe(2);
  expect(observed).toContain("enterpriseProxy/getEnterpriseProxyEnterprises ok");

  service.dispose();
  orchestrator.close();
});
