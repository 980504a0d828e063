import { BEAT_MS, createCore } from "@sdwan-connections/core";
import { createInMemoryOrchestrator } from "@sdwan-connections/core/testing";
import { describe, expect, it, vi } from "vitest";
import { openLowdbStorage } from "../src/open-lowdb-storage.js";
import { keyringOf, run, temporaryDirectory } from "./support.js";

describe("an idle store's periodic looks", () => {
  // Regression (issue 40: an idle service woke about 20 times a second, each look at its own phase): the trail's
  // watch, the grants file's poll and the webhook relay's fallback poll each armed a timer of their own.
  it("share one timer: the trail watch, the grants poll and the relay's poll arm one between them", async () => {
    const armed: number[] = [];
    const count =
      <F extends (callback: () => void, ms?: number) => unknown>(original: F) =>
      (callback: () => void, ms?: number) => {
        if ((ms ?? 0) >= BEAT_MS && (ms ?? 0) <= 1_000) armed.push(ms ?? 0);
        return original(callback, ms);
      };
    const [realInterval, realTimeout] = [globalThis.setInterval, globalThis.setTimeout];
    const intervals = vi.spyOn(globalThis, "setInterval").mockImplementation(count(realInterval) as never);
    const timeouts = vi.spyOn(globalThis, "setTimeout").mockImplementation(count(realTimeout) as never);
    await using directory = await temporaryDirectory();
    const storage = await run(openLowdbStorage({ dataDir: directory.path, keyring: keyringOf() }));
    const service = createCore({
      storage,
      orchestrator: createInMemoryOrchestrator(),
      webhooks: { sender: { send: async () => ({ _tag: "answered", status: 200 }) } as never },
    });
    const relay = service.webhooks?.createRelay();
    try {
      const stopTrail = await run(storage.audit.subscribe(() => undefined));
      const stopGrants = storage.grants.subscribe(() => undefined);
      relay?.start();
      // Long enough for every poll to run a few times (the relay's at 500 ms).
      await new Promise((resolve) => realTimeout(resolve, 4 * BEAT_MS + 300));
      stopTrail();
      stopGrants();
      expect(relay).toBeDefined();
      expect(armed).toEqual([BEAT_MS]);
    } finally {
      intervals.mockRestore();
      timeouts.mockRestore();
      await relay?.stop();
      await service.dispose();
      await storage.close();
    }
  }, 20_000);
});
