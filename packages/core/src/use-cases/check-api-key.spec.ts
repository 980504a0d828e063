import { describe, expect, it } from "vitest";
import { createTestWorld, expectLeft, expectRight, TEST_KEYS } from "../../testing/index.js";

const setup = async () => {
  const world = createTestWorld();
  await expectRight(
    world.service.connections.add({
      alias: "Lab",
      orchestratorUrl: "https://vco.example.net",
      apiKey: TEST_KEYS.partner,
    }),
  );
  return world;
};

describe("checkApiKey", () => {
  it("tells whether the stored key is the one given, without asking the orchestrator", async () => {
    const { service, orchestrator } = await setup();
    orchestrator.calls.identify = 0;
    expect(await expectRight(service.connections.checkKey("LAB", { apiKey: TEST_KEYS.partner }))).toEqual({
      matches: true,
    });
    expect(await expectRight(service.connections.checkKey("lab", { apiKey: `${TEST_KEYS.partner}x` }))).toEqual({
      matches: false,
    });
    expect(orchestrator.calls.identify).toBe(0);
  });

  it("follows a key change; the fingerprint in a verbose validation changes with it", async () => {
    const { service } = await setup();
    const before = await expectRight(service.connections.validate("lab"));
    await expectRight(service.connections.update("lab", { apiKey: TEST_KEYS.customer }));
    const after = await expectRight(service.connections.validate("lab"));
    expect(after.apiKeyFingerprint).not.toBe(before.apiKeyFingerprint);
    expect(await expectRight(service.connections.checkKey("lab", { apiKey: TEST_KEYS.customer }))).toEqual({
      matches: true,
    });
    expect(await expectRight(service.connections.checkKey("lab", { apiKey: TEST_KEYS.partner }))).toEqual({
      matches: false,
    });
  });

  it("refuses a body without exactly one valid apiKey, and answers NotFound for an unknown alias", async () => {
    const { service } = await setup();
    expect((await expectLeft(service.connections.checkKey("lab", {})))._tag).toBe("InvalidInput");
    expect((await expectLeft(service.connections.checkKey("lab", { apiKey: TEST_KEYS.partner, extra: 1 })))._tag).toBe(
      "InvalidInput",
    );
    expect((await expectLeft(service.connections.checkKey("lab", { apiKey: "" })))._tag).toBe("InvalidInput");
    expect(await expectLeft(service.connections.checkKey("ghost", { apiKey: TEST_KEYS.partner }))).toEqual({
      _tag: "NotFound",
      alias: "ghost",
    });
  });
});
