import * as E from "fp-ts/lib/Either.js";
import { createTestCertificates, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { describe, expect, it } from "vitest";
import { createPortalOrchestrator } from "../src/index.js";
import { SAMPLE_PARTNER_KEY, targetFor } from "./helpers.js";

describe("an orchestrator whose certificate comes from a private CA", () => {
  const certificates = createTestCertificates();

  it("is trusted once its CA is given, and verification stays on", async () => {
    await using simulator = await startOrchestratorSimulator({
      tls: { key: certificates.key, cert: certificates.cert },
    });
    expect(simulator.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    const orchestrator = createPortalOrchestrator({ ca: [certificates.caCert], allowedHosts: undefined });
    try {
      expect(await orchestrator.identify(targetFor(simulator.url, SAMPLE_PARTNER_KEY))()).toEqual(
        E.right({ kind: "partner", partnerId: 10 }),
      );
      // Another CA's certificate is still refused: the extra CA adds trust, it does not switch checks off.
      const stranger = createTestCertificates();
      await using impostor = await startOrchestratorSimulator({ tls: { key: stranger.key, cert: stranger.cert } });
      const refused = await orchestrator.identify(targetFor(impostor.url, SAMPLE_PARTNER_KEY))();
      expect(E.isLeft(refused) && refused.left.reason).toMatch(/TLS certificate is not trusted/);
    } finally {
      orchestrator.close();
    }
  });

  it("is refused without the CA, with a reason that says why and what to do", async () => {
    await using simulator = await startOrchestratorSimulator({
      tls: { key: certificates.key, cert: certificates.cert },
    });
    const orchestrator = createPortalOrchestrator({ allowedHosts: undefined });
    try {
      const identity = await orchestrator.identify(targetFor(simulator.url, SAMPLE_PARTNER_KEY))();
      expect(E.isLeft(identity) && identity.left).toMatchObject({
        _tag: "OrchestratorUnreachable",
        reason: expect.stringMatching(
          /^The orchestrator's TLS certificate is not trusted \([A-Z_]+\) for .*SDWAN_ORCHESTRATOR_CA_FILE/,
        ),
      });
      expect(simulator.calls.total).toBe(0);
    } finally {
      orchestrator.close();
    }
  });
});
