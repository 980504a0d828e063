import { describe, expect, it } from "vitest";
import { orchestratorUnreachable } from "../domain/errors.js";
import { createTestWorld, expectLeft, expectRight, TEST_KEYS } from "../../testing/index.js";

const body = (overrides: Record<string, unknown> = {}) => ({
  alias: "Lab",
  orchestratorUrl: "https://vco.example.net/",
  apiKey: TEST_KEYS.partner,
  ...overrides,
});

describe("addConnection", () => {
  it("stores a connection whose key the orchestrator accepts", async () => {
    const { service, repository } = createTestWorld();
    expect(await expectRight(service.connections.add(body()))).toBe("added");
    expect(await expectRight(repository.list())).toEqual([
      { alias: "Lab", orchestratorUrl: "https://vco.example.net/" },
    ]);
  });

  it("refuses a key the orchestrator rejects, storing nothing", async () => {
    const { service, repository } = createTestWorld();
    const error = await expectLeft(service.connections.add(body({ apiKey: TEST_KEYS.refused })));
    expect(error).toMatchObject({ _tag: "ValidationRefused", alias: "Lab", cause: { _tag: "OrchestratorRejected" } });
    expect(await expectRight(repository.list())).toEqual([]);
  });

  it("refuses when the orchestrator cannot be reached", async () => {
    const { service, orchestrator } = createTestWorld();
    orchestrator.failWith(TEST_KEYS.partner, orchestratorUnreachable("connection refused"));
    expect(await expectLeft(service.connections.add(body()))).toMatchObject({
      _tag: "ValidationRefused",
      cause: { _tag: "OrchestratorUnreachable", reason: "connection refused" },
    });
  });

  it("stores without asking the orchestrator when forced", async () => {
    const { service, orchestrator } = createTestWorld();
    expect(await expectRight(service.connections.add(body({ apiKey: TEST_KEYS.refused }), { force: true }))).toBe(
      "added",
    );
    expect(orchestrator.calls.identify).toBe(0);
  });

  it("validates but stores nothing on a dry run", async () => {
    const { service, repository, orchestrator } = createTestWorld();
    expect(await expectRight(service.connections.add(body(), { dryRun: true }))).toBe("dry-run");
    expect(orchestrator.calls.identify).toBe(1);
    expect(await expectRight(repository.list())).toEqual([]);
    expect(
      (await expectLeft(service.connections.add(body({ apiKey: TEST_KEYS.refused }), { dryRun: true })))._tag,
    ).toBe("ValidationRefused");
  });

  it("refuses an alias that exists in any case, before asking the orchestrator", async () => {
    const { service, orchestrator } = createTestWorld();
    await expectRight(service.connections.add(body()));
    const error = await expectLeft(service.connections.add(body({ alias: "LAB" })));
    expect(error).toEqual({ _tag: "AlreadyExists", alias: "Lab" });
    expect(orchestrator.calls.identify).toBe(1);
    expect((await expectLeft(service.connections.add(body({ alias: "lab" }), { dryRun: true })))._tag).toBe(
      "AlreadyExists",
    );
  });

  it("refuses invalid input before touching any port", async () => {
    const { service, orchestrator } = createTestWorld();
    const error = await expectLeft(service.connections.add({ alias: "lab", apikey: "typo" }));
    expect(error).toEqual({
      _tag: "InvalidInput",
      errors: [{ field: "apikey", message: "is not a known field" }],
    });
    expect(orchestrator.calls.identify).toBe(0);
  });
});
