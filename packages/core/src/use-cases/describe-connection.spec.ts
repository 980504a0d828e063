import { describe, expect, it } from "vitest";
import { createTestWorld, expectLeft, expectRight, TEST_KEYS } from "../../testing/index.js";
import { detailsAnswer } from "./describe-connection.js";

describe("describeConnection", () => {
  it("shows what is stored, with the key's fingerprint, without asking the orchestrator", async () => {
    const { service, orchestrator } = createTestWorld();
    await expectRight(
      service.addConnection(
        { alias: "Lab", orchestratorUrl: "https://vco.example.net/", apiKey: TEST_KEYS.partner },
        { force: true },
      ),
    );
    const details = await expectRight(service.describeConnection("lab"));
    expect(details).toEqual({
      alias: "Lab",
      orchestratorUrl: "https://vco.example.net/",
      version: 1,
      apiKeySetAt: expect.any(Date),
      apiKeyFingerprint: expect.stringMatching(/^[\w-]{43}$/),
      keyRenewal: "off",
    });
    expect(orchestrator.calls.identify).toBe(0);
    expect(details.apiKeyFingerprint).toBe((await expectRight(service.validateConnection("lab"))).apiKeyFingerprint);
    expect(JSON.stringify(detailsAnswer(details))).not.toContain(TEST_KEYS.partner);
  });

  it("answers NotFound for an unknown alias and refuses a malformed one", async () => {
    const { service } = createTestWorld();
    expect((await expectLeft(service.describeConnection("ghost")))._tag).toBe("NotFound");
    expect((await expectLeft(service.describeConnection("no spaces")))._tag).toBe("InvalidInput");
  });
});
