import { describe, expect, it } from "vitest";
import {
  createInMemoryOrchestrator,
  createTestWorld,
  expectLeft,
  expectRight,
  TEST_KEYS,
} from "../../testing/index.js";
import { createCore } from "../services/core.js";
import type { Alias } from "../domain/codecs.js";
import { createInMemoryStorage } from "../adapters/memory-storage.js";
import { createInProcessConnectionChanges } from "../adapters/in-process-connection-changes.js";
import type { ConnectionChangeNotice } from "../ports/connection-changes.js";

const setup = async () => {
  const world = createTestWorld();
  await expectRight(
    world.service.connections.add({
      alias: "Lab",
      orchestratorUrl: "https://vco.example.net",
      apiKey: TEST_KEYS.partner,
    }),
  );
  world.orchestrator.calls.identify = 0;
  return world;
};

const stored = async (world: Awaited<ReturnType<typeof setup>>) => expectRight(world.repository.get("lab" as Alias));

describe("updateConnection", () => {
  it("changes only the URL, keeping the key", async () => {
    const world = await setup();
    await expectRight(world.service.connections.update("LAB", { orchestratorUrl: "https://moved.example.net/" }));
    const connection = await stored(world);
    expect(connection.orchestratorUrl).toBe("https://moved.example.net/");
    expect(connection.apiKey.reveal()).toBe(TEST_KEYS.partner);
    expect(connection.alias).toBe("Lab");
  });

  it("changes only the key, validating the key that will be stored", async () => {
    const world = await setup();
    await expectRight(world.service.connections.update("lab", { apiKey: TEST_KEYS.customer }));
    expect((await stored(world)).apiKey.reveal()).toBe(TEST_KEYS.customer);
    expect(world.orchestrator.calls.identify).toBe(1);
  });

  it("refuses a key the orchestrator rejects, changing nothing", async () => {
    const world = await setup();
    const error = await expectLeft(world.service.connections.update("lab", { apiKey: TEST_KEYS.refused }));
    expect(error).toMatchObject({ _tag: "ValidationRefused", cause: { _tag: "OrchestratorRejected" } });
    expect((await stored(world)).apiKey.reveal()).toBe(TEST_KEYS.partner);
  });

  it("stores a refused key when forced, without asking", async () => {
    const world = await setup();
    await expectRight(world.service.connections.update("lab", { apiKey: TEST_KEYS.refused }, { force: true }));
    expect((await stored(world)).apiKey.reveal()).toBe(TEST_KEYS.refused);
    expect(world.orchestrator.calls.identify).toBe(0);
  });

  it("in a dry run, validates the connection as the change would make it, and stores nothing", async () => {
    const world = await setup();
    expect(
      await expectRight(world.service.connections.update("lab", { apiKey: TEST_KEYS.customer }, { dryRun: true })),
    ).toBe("dry-run");
    expect(world.orchestrator.calls.identify).toBe(1);
    expect(await stored(world)).toMatchObject({ version: 1 });
    expect((await stored(world)).apiKey.reveal()).toBe(TEST_KEYS.partner);
    const refused = await expectLeft(
      world.service.connections.update("lab", { apiKey: TEST_KEYS.refused }, { dryRun: true }),
    );
    expect(refused).toMatchObject({ _tag: "ValidationRefused" });
    expect(
      await expectRight(world.service.connections.update("lab", { orchestratorUrl: "https://moved.example.net/" })),
    ).toBe("updated");
  });

  it("at an expected version only: another fails before the orchestrator is asked, and changes nothing", async () => {
    const world = await setup();
    const error = await expectLeft(
      world.service.connections.update("lab", { apiKey: TEST_KEYS.customer }, { expectedVersions: [2] }),
    );
    expect(error).toEqual({ _tag: "VersionMismatch", alias: "Lab", version: 1 });
    expect(world.orchestrator.calls.identify).toBe(0);
    expect(await stored(world)).toMatchObject({ version: 1 });
    await expectRight(
      world.service.connections.update("lab", { apiKey: TEST_KEYS.customer }, { expectedVersions: [1] }),
    );
    expect(await stored(world)).toMatchObject({ version: 2 });
  });

  it("keeps the version of a change that changes nothing (the same URL, the same key), answers unchanged, and announces it all the same", async () => {
    const changes = createInProcessConnectionChanges();
    const published: ConnectionChangeNotice[] = [];
    changes.subscribe((notice) => void published.push(notice));
    const storage = { ...createInMemoryStorage(), changes };
    const { repository } = storage;
    const orchestrator = createInMemoryOrchestrator([
      { apiKey: TEST_KEYS.partner, identity: { kind: "partner", partnerId: 7 }, customers: [] },
    ]);
    const service = createCore({ storage, orchestrator });
    await expectRight(
      service.connections.add({ alias: "lab", orchestratorUrl: "https://vco.example.net/", apiKey: TEST_KEYS.partner }),
    );
    const added = await expectRight(repository.get("lab" as Alias));
    expect(
      await expectRight(
        service.connections.update("LAB", { orchestratorUrl: "https://vco.example.net/", apiKey: TEST_KEYS.partner }),
      ),
    ).toBe("unchanged");
    expect(
      await expectRight(
        service.connections.update("lab", { apiKey: TEST_KEYS.partner }, { expectedVersions: [added.version] }),
      ),
    ).toBe("unchanged");
    expect(await expectRight(repository.get("lab" as Alias))).toMatchObject({
      version: added.version,
      apiKeySetAt: added.apiKeySetAt,
    });
    // An update drops the cached customers, whatever it changed (SPEC §4): announced, so every instance drops them.
    expect(published).toEqual(["lab", "lab"]);
    expect(
      await expectRight(service.connections.update("lab", { orchestratorUrl: "https://moved.example.net/" })),
    ).toBe("updated");
    expect(published).toEqual(["lab", "lab", "lab"]);
    expect((await expectRight(repository.get("lab" as Alias))).version).toBeGreaterThan(added.version);
  });

  // Regression: a PUT that changed nothing kept the customers cache.
  it("drops the connection's cached customers on an update that changes nothing", async () => {
    const world = await setup();
    await expectRight(world.service.connections.customers("lab"));
    await expectRight(world.service.connections.customers("lab"));
    expect(world.orchestrator.calls.listPartnerCustomers).toBe(1);
    expect(
      await expectRight(world.service.connections.update("lab", { apiKey: TEST_KEYS.partner }, { force: true })),
    ).toBe("unchanged");
    await expectRight(world.service.connections.customers("lab"));
    expect(world.orchestrator.calls.listPartnerCustomers).toBe(2);
  });

  it("answers NotFound for an unknown alias", async () => {
    const world = await setup();
    expect(await expectLeft(world.service.connections.update("ghost", { apiKey: "k" }))).toEqual({
      _tag: "NotFound",
      alias: "ghost",
    });
  });

  it("tolerates the path's alias in the body, in any case", async () => {
    const world = await setup();
    await expectRight(
      world.service.connections.update("lab", { alias: "LAB", orchestratorUrl: "https://x.example.net" }),
    );
  });

  it("refuses another alias in the body", async () => {
    const world = await setup();
    expect(await expectLeft(world.service.connections.update("lab", { alias: "other", apiKey: "k" }))).toEqual({
      _tag: "InvalidInput",
      errors: [{ field: "alias", message: "must equal the alias in the path, or be left out" }],
    });
  });

  it("refuses an empty change, unknown fields and a bad path alias", async () => {
    const world = await setup();
    expect((await expectLeft(world.service.connections.update("lab", {})))._tag).toBe("InvalidInput");
    expect((await expectLeft(world.service.connections.update("lab", { apiKey: "k", url: "x" })))._tag).toBe(
      "InvalidInput",
    );
    expect(await expectLeft(world.service.connections.update("bad alias", { apiKey: "k" }))).toMatchObject({
      _tag: "InvalidInput",
      errors: [{ field: "alias" }],
    });
  });
});
