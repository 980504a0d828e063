import { writeFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { createTestCertificates, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { describe, expect, it } from "vitest";
import { loadCertificateAuthorities } from "@sdwan-connections/composition";
import * as E from "fp-ts/lib/Either.js";
import { ADMIN, BASE, captureLogs, client, makeDataDir, startService, testConfig } from "./harness.js";
import { createInMemoryStorage } from "@sdwan-connections/core";

const PARTNER_KEY = "sample-partner-key-1";

describe("SDWAN_ORCHESTRATOR_CA_FILE", () => {
  const certificates = createTestCertificates();

  const serviceWith = async (dir: string, env: Record<string, string>) =>
    startService(
      testConfig({ SDWAN_DATA_DIR: dir, SDWAN_ADMIN_USER: ADMIN.name, SDWAN_ADMIN_PASSWORD: ADMIN.password, ...env }),
      {
        storage: createInMemoryStorage(),
        logDestination: captureLogs().stream,
      },
    );

  it("trusts an https orchestrator whose CA it names; without it the add is refused with a TLS reason", async () => {
    const dir = await makeDataDir();
    await using simulator = await startOrchestratorSimulator({
      tls: { key: certificates.key, cert: certificates.cert },
    });
    const caFile = join(dir, "orchestrator-ca.pem");
    // Two certificates in one file: another CA first, so the one that matters is not the only one.
    await writeFile(caFile, `${createTestCertificates().caCert}\n${certificates.caCert}`);
    const trusting = await serviceWith(dir, { SDWAN_ORCHESTRATOR_CA_FILE: caFile });
    const untrusting = await serviceWith(dir, {});
    try {
      const body = { alias: "onprem", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY };
      expect((await client(trusting.url)("POST", `${BASE}/connections`, { body })).status).toBe(200);
      expect((await client(trusting.url)("GET", `${BASE}/connections/onprem`)).json()).toMatchObject({ valid: true });
      const refused = await client(untrusting.url)("POST", `${BASE}/connections`, { body });
      expect(refused.status).toBe(422);
      expect(refused.json<{ detail: string }>().detail).toMatch(/TLS certificate is not trusted/);
    } finally {
      await trusting.close();
      await untrusting.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("stops the start with one line for a file that is missing, empty of certificates or broken", async () => {
    const dir = await makeDataDir();
    try {
      expect(await loadCertificateAuthorities(join(dir, "absent.pem"))()).toEqual(
        E.left(expect.stringMatching(/^SDWAN_ORCHESTRATOR_CA_FILE: cannot read .*absent\.pem \(ENOENT\)$/)),
      );
      await writeFile(join(dir, "empty.pem"), "no certificate here\n");
      expect(await loadCertificateAuthorities(join(dir, "empty.pem"))()).toEqual(
        E.left(expect.stringMatching(/holds no PEM certificate$/)),
      );
      await writeFile(
        join(dir, "broken.pem"),
        `${certificates.caCert}\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n`,
      );
      expect(await loadCertificateAuthorities(join(dir, "broken.pem"))()).toEqual(
        E.left(expect.stringMatching(/certificate 2 in .* cannot be read$/)),
      );
      await expect(serviceWith(dir, { SDWAN_ORCHESTRATOR_CA_FILE: join(dir, "empty.pem") })).rejects.toThrow(
        /SDWAN_ORCHESTRATOR_CA_FILE/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
