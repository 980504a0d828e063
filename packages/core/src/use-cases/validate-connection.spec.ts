import { describe, expect, it } from "vitest";
import { orchestratorTimedOut } from "../domain/errors.js";
import { createTestWorld, expectLeft, expectRight, TEST_KEYS } from "../../testing/index.js";

const setup = async (apiKey: string) => {
  const world = createTestWorld();
  await expectRight(
    world.service.addConnection({ alias: "Lab", orchestratorUrl: "https://vco.example.net/", apiKey }, { force: true }),
  );
  return world;
};

describe("validateConnection", () => {
  it("reports a partner key as valid, with its type", async () => {
    const { service } = await setup(TEST_KEYS.partner);
    expect(await expectRight(service.validateConnection("lab"))).toEqual({
      alias: "Lab",
      orchestratorUrl: "https://vco.example.net/",
      valid: true,
      type: "partner",
      version: 1,
      apiKeySetAt: expect.any(Date),
      apiKeyFingerprint: expect.stringMatching(/^[\w-]{43}$/),
      keyRenewal: "off",
    });
  });

  it("reports a customer key as valid", async () => {
    const { service } = await setup(TEST_KEYS.customer);
    expect(await expectRight(service.validateConnection("Lab"))).toMatchObject({ valid: true, type: "customer" });
  });

  it("reports a refused key as invalid, saying why", async () => {
    const { service } = await setup(TEST_KEYS.refused);
    expect(await expectRight(service.validateConnection("lab"))).toMatchObject({
      valid: false,
      reason: expect.any(String),
    });
  });

  it("reports an orchestrator that times out as invalid, not as a failure", async () => {
    const { service, orchestrator } = await setup(TEST_KEYS.partner);
    orchestrator.failWith(TEST_KEYS.partner, orchestratorTimedOut("no answer within 10000 ms"));
    expect(await expectRight(service.validateConnection("lab"))).toMatchObject({
      valid: false,
      reason: "no answer within 10000 ms",
    });
  });

  it("asks the orchestrator every time, so a revoked key shows at once", async () => {
    const { service, orchestrator } = await setup(TEST_KEYS.partner);
    expect((await expectRight(service.validateConnection("lab"))).valid).toBe(true);
    orchestrator.setAccount(TEST_KEYS.partner, undefined);
    expect((await expectRight(service.validateConnection("lab"))).valid).toBe(false);
    expect(orchestrator.calls.identify).toBe(2);
  });

  it("answers NotFound for an unknown alias", async () => {
    const { service } = await setup(TEST_KEYS.partner);
    expect((await expectLeft(service.validateConnection("ghost")))._tag).toBe("NotFound");
  });

  it("records each outcome, its time and its reason as the connection's last known health", async () => {
    const { service, orchestrator } = await setup(TEST_KEYS.partner);
    expect(await expectRight(service.connectionsHealth())).toEqual([
      { alias: "Lab", state: "unknown", since: null, checks: [] },
    ]);
    const before = Date.now();
    await expectRight(service.validateConnection("LAB"));
    const [valid] = await expectRight(service.connectionsHealth());
    expect(valid).toMatchObject({
      alias: "Lab",
      state: "valid",
      checks: [{ outcome: "valid", reason: null, latencyMs: expect.any(Number) }],
    });
    expect(valid?.since?.getTime()).toBeGreaterThanOrEqual(before);
    expect(valid?.checks[0]?.at).toEqual(valid?.since);

    orchestrator.setAccount(TEST_KEYS.partner, undefined);
    await expectRight(service.validateConnection("lab"));
    orchestrator.failWith(TEST_KEYS.partner, orchestratorTimedOut("no answer within 10000 ms"));
    await expectRight(service.validateConnection("lab"));
    const [unreachable] = await expectRight(service.connectionsHealth());
    expect(unreachable?.state).toBe("unreachable");
    expect(unreachable?.checks.map(({ outcome, reason }) => [outcome, reason])).toEqual([
      ["unreachable", "no answer within 10000 ms"],
      ["invalid", expect.any(String)],
      ["valid", null],
    ]);
  });

  it("records nothing for a connection deleted (and added again) while it was being checked", async () => {
    const { service, orchestrator } = await setup(TEST_KEYS.partner);
    const gate = orchestrator.pause();
    const validating = service.validateConnection("lab")();
    await new Promise((resolve) => setImmediate(resolve)); // the orchestrator is being asked
    await expectRight(service.deleteConnection("lab"));
    await expectRight(
      service.addConnection(
        { alias: "Lab", orchestratorUrl: "https://vco.example.net/", apiKey: TEST_KEYS.refused },
        { force: true },
      ),
    );
    gate.release();
    await validating;
    expect(await expectRight(service.connectionsHealth())).toEqual([
      { alias: "Lab", state: "unknown", since: null, checks: [] },
    ]);
  });
});
