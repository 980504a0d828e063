import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
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

  await service.dispose();
  orchestrator.close();
});

it("is the README's wiring example, line for line (the simulator's URL for 8981's, its imports aside)", async () => {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  const example = /```ts\n(import \{ createCore[\s\S]*?)```/.exec(readme)?.[1] ?? "";
  const statements = example
    .split("\n")
    .map((line) => line.replace(/ \/\/ .*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("import ") && !line.startsWith("//"))
    .map((line) => line.replace('"http://127.0.0.1:8981/"', "simulator.url"));
  const source = (await readFile(fileURLToPath(import.meta.url), "utf8")).split("\n").map((line) => line.trim());
  expect(statements.length).toBeGreaterThan(5);
  expect(statements.filter((line) => !source.includes(line))).toEqual([]);
});
