import { describe, expect, it } from "vitest";
import { createInMemoryStorage } from "../adapters/memory-storage.js";
import { createInMemoryOrchestrator } from "../../testing/in-memory-orchestrator.js";
import { expectLeft, expectRight as run } from "../../testing/run.js";
import { createCore } from "./core.js";

const serviceOver = (storage = createInMemoryStorage()) => ({
  storage,
  service: createCore({ storage, orchestrator: createInMemoryOrchestrator() }),
});

describe("the grant service", () => {
  it("adds a decoded grant once, audits each change as a change by its actor, and removes it", async () => {
    const { service } = serviceOver();
    const by = { name: "oidc:root", requestId: "r1" };
    const added = await run(service.grants.add({ subject: "group:emea", pattern: "emea-*", verb: "use" }, by));
    expect(added).toMatchObject({ subject: "group:emea", pattern: "emea-*", verb: "use" });
    expect(
      await run(service.grants.add({ subject: "group:emea", pattern: "EMEA-*", verb: "use" }, by)),
    ).toBeUndefined();
    expect(await run(service.grants.list())).toEqual([added]);
    expect(await run(service.grants.remove(added!.id, by))).toEqual(added);
    expect(await run(service.grants.remove(added!.id, by))).toBeUndefined();
    expect(await run(service.grants.remove("not-an-id", by))).toBeUndefined();
    expect(await run(service.grants.list())).toEqual([]);
    const page = await run(service.audit.list({}));
    expect(
      page.entries.map(({ action, actor, alias, detail, outcome }) => ({ action, actor, alias, detail, outcome })),
    ).toEqual([
      {
        action: "grant-remove",
        actor: "oidc:root",
        alias: null,
        detail: "group:emea use emea-*",
        outcome: "succeeded",
      },
      { action: "grant-add", actor: "oidc:root", alias: null, detail: "group:emea use emea-*", outcome: "succeeded" },
    ]);
  });

  it("refuses a bad grant naming the field, changing nothing", async () => {
    const { service } = serviceOver();
    const error = await expectLeft(service.grants.add({ subject: "emea", pattern: "x", verb: "read" }));
    expect(error).toMatchObject({ _tag: "InvalidInput", errors: [{ field: "subject" }] });
    expect(await run(service.grants.list())).toEqual([]);
  });

  it("lists from memory, and reads the store again once it told of a change by another instance", async () => {
    const storage = createInMemoryStorage();
    const one = serviceOver(storage).service;
    const two = serviceOver(storage).service;
    expect(await run(two.grants.list())).toEqual([]);
    const added = await run(one.grants.add({ subject: "user:carol", pattern: "*", verb: "read" }));
    expect(await run(two.grants.list())).toEqual([added]);
  });

  it("watches the store only from the grants' first use: a service that never uses them has it poll nothing (issue 40)", async () => {
    const storage = createInMemoryStorage();
    let watches = 0;
    const grants = {
      ...storage.grants,
      subscribe: (listener: () => void) => ((watches += 1), storage.grants.subscribe(listener)),
    };
    const service = createCore({ storage: { ...storage, grants }, orchestrator: createInMemoryOrchestrator() });
    await run(service.connections.list());
    expect(watches).toBe(0);
    await run(service.grants.list());
    await run(service.grants.list());
    service.grants.onChange(() => undefined);
    expect(watches).toBe(1);
    service.dispose();
  });
});
