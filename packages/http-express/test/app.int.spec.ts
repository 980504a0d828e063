import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createLogger } from "@sdwan-connections/composition";
import { createMetrics } from "@sdwan-connections/composition/metrics";
import { createCore, createInMemoryStorage, type ConnectionRepository, type Storage } from "@sdwan-connections/core";
import { createInMemoryConnectionRepository, createInMemoryOrchestrator } from "@sdwan-connections/core/testing";
import express from "express";
import * as TE from "fp-ts/lib/TaskEither.js";
import { describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app.js";
import { captureLogs } from "./harness.js";

/** An app on `storage` (in memory by default), without auth, listening on loopback while `use` runs. */
const withApp = async (
  use: (baseUrl: string) => Promise<void>,
  { storage = createInMemoryStorage(), ready = true }: { readonly storage?: Storage; readonly ready?: boolean } = {},
): Promise<void> => {
  const app = createApp({
    service: createCore({ storage, orchestrator: createInMemoryOrchestrator() }),
    logger: createLogger("info", captureLogs().stream),
    metrics: createMetrics({ defaultMetrics: false }),
    auth: undefined,
    ready: async () => ready,
  });
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.close();
  }
};

describe("createApp without the container", () => {
  it("lists exactly alias and orchestratorUrl even when a store returns more (no sealed key can slip out)", async () => {
    const base = createInMemoryConnectionRepository();
    const leaky: ConnectionRepository = {
      ...base,
      list: () =>
        TE.right([{ alias: "x", orchestratorUrl: "https://o.example.net", sealedApiKey: "v1.sealed" } as never]),
    };
    await withApp(
      async (baseUrl) => {
        const response = await fetch(`${baseUrl}/rest/plugin/sdwan/connections`);
        expect(await response.json()).toStrictEqual([{ alias: "x", orchestratorUrl: "https://o.example.net" }]);
      },
      { storage: { ...createInMemoryStorage(), repository: leaky } },
    );
  });

  it("/readyz answers 503 while the store cannot be used", async () => {
    await withApp(
      async (baseUrl) => {
        const response = await fetch(`${baseUrl}/readyz`);
        expect([response.status, await response.json()]).toEqual([503, { status: "not ready" }]);
      },
      { ready: false },
    );
  });

  it("a request enters two routers, the app's and the API's: every resource's routes are the API router's own", async () => {
    // Every router, nested or not, is entered through its prototype's handle (express 5's router package).
    const entered = vi.spyOn((express.Router as unknown as { prototype: { handle: () => void } }).prototype, "handle");
    try {
      await withApp(async (baseUrl) => {
        // The first resources and the last: a router of their own was one level more for the list (http bench: about
        // 5% of its CPU), and nine more for the webhooks, the last mounted.
        for (const [path, status] of [
          ["connections", 200],
          ["partner/none/customers", 404],
          ["audit", 200],
          // Not set up here (no sender): the route answers so.
          ["webhooks", 404],
        ] as const) {
          entered.mockClear();
          const response = await fetch(`${baseUrl}/rest/plugin/sdwan/${path}`);
          expect([path, response.status]).toEqual([path, status]);
          expect([path, entered.mock.calls.length]).toEqual([path, 2]);
        }
      });
    } finally {
      entered.mockRestore();
    }
  });
});
