import { describe, expect, it } from "vitest";
import { createTestWorld, expectLeft, expectRight, TEST_KEYS } from "../../testing/index.js";

describe("deleteConnection", () => {
  it("removes the connection in any case", async () => {
    const { service } = createTestWorld();
    await expectRight(
      service.connections.add({ alias: "Lab", orchestratorUrl: "https://vco.example.net", apiKey: TEST_KEYS.partner }),
    );
    await expectRight(service.connections.delete("LAB"));
    expect(await expectRight(service.connections.list())).toEqual([]);
  });

  it("at an expected version only", async () => {
    const { service } = createTestWorld();
    await expectRight(
      service.connections.add({ alias: "Lab", orchestratorUrl: "https://vco.example.net", apiKey: TEST_KEYS.partner }),
    );
    expect(await expectLeft(service.connections.delete("lab", { expectedVersions: [2] }))).toEqual({
      _tag: "VersionMismatch",
      alias: "Lab",
      version: 1,
    });
    await expectRight(service.connections.delete("lab", { expectedVersions: [1] }));
    expect(await expectRight(service.connections.list())).toEqual([]);
  });

  it("answers NotFound for an unknown alias and InvalidInput for a malformed one", async () => {
    const { service } = createTestWorld();
    expect(await expectLeft(service.connections.delete("ghost"))).toEqual({ _tag: "NotFound", alias: "ghost" });
    expect((await expectLeft(service.connections.delete("../etc")))._tag).toBe("InvalidInput");
  });

  it("removes the connection's health state: the alias added again starts unknown", async () => {
    const { service, orchestrator } = createTestWorld();
    await expectRight(
      service.connections.add({ alias: "Lab", orchestratorUrl: "https://vco.example.net", apiKey: TEST_KEYS.partner }),
    );
    orchestrator.setAccount(TEST_KEYS.partner, undefined);
    await expectRight(service.connections.validate("lab"));
    expect((await expectRight(service.health.list()))[0]?.state).toBe("invalid");
    await expectRight(service.connections.delete("LAB"));
    await expectRight(
      service.connections.add(
        { alias: "lab", orchestratorUrl: "https://vco.example.net", apiKey: TEST_KEYS.partner },
        { force: true },
      ),
    );
    expect(await expectRight(service.health.list())).toEqual([
      { alias: "lab", state: "unknown", since: null, checks: [] },
    ]);
  });
});
