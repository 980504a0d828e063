import { createCore } from "@sdwan-connections/core";
import { createInMemoryOrchestrator, TEST_KEYS } from "@sdwan-connections/core/testing";
import { describe, expect, it, vi } from "vitest";
import { openLowdbStorage } from "../src/open-lowdb-storage.js";
import { keyringOf, run, temporaryDirectory } from "./support.js";

describe("events over the trail", () => {
  // Regression (issue 36, 7b: `events --follow` printed `before-restart` twice): a change's entry is in the file
  // before its change lands, so a catch-up lists it, and the landing tells it again after the catch-up ended.
  it("hands on once the event of a change landing while a stream opens from an earlier id: 60 races, 0 repeats", async () => {
    await using directory = await temporaryDirectory();
    const storage = await run(openLowdbStorage({ dataDir: directory.path, keyring: keyringOf() }));
    const service = createCore({ storage, orchestrator: createInMemoryOrchestrator() });
    const add = (alias: string) =>
      service.connections.add(
        { alias, orchestratorUrl: "https://vco.example.net", apiKey: TEST_KEYS.partner },
        { force: true },
      );
    try {
      await run(add("first"));
      // Every subscriber is told an entry in one go: once this one has heard a change, so has the stream.
      const told = new Set<string>();
      const probe = await run(storage.audit.subscribe((entry) => told.add(entry.alias ?? "")));
      const repeated: string[] = [];
      for (let i = 0; i < 60; i += 1) {
        const [last] = await run(storage.audit.list({ limit: 1 }));
        const adding = add(`c${i}`)();
        // Opened at varied points of the change's append, landing and telling.
        await new Promise((resolve) => setTimeout(resolve, i % 7));
        const seen: string[] = [];
        const stop = await run(
          service.events.follow({ lastEventId: last?.id }, (item) => {
            if (item._tag === "event") seen.push(item.event.subject);
          }),
        );
        await adding;
        await vi.waitFor(() => expect(told.has(`c${i}`)).toBe(true), { timeout: 10_000 });
        stop();
        expect(seen.filter((subject) => subject === `c${i}`).length).toBeGreaterThanOrEqual(1);
        if (seen.filter((subject) => subject === `c${i}`).length > 1) repeated.push(`c${i}`);
      }
      probe();
      expect(repeated).toEqual([]);
    } finally {
      await service.dispose();
      await storage.close();
    }
  }, 60_000);
});
