import { readFile } from "node:fs/promises";
import { X509Certificate } from "node:crypto";
import { createPortalOrchestrator } from "@sdwan-connections/orchestrator-portal";
import { ContainerModule } from "inversify";
import type { Config } from "../../config.js";
import { TOKENS } from "../tokens.js";
import { StartupError } from "./startup-error.js";

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The certificates of `SDWAN_ORCHESTRATOR_CA_FILE` (PEM, one or more), each
 * checked to be a readable X.509 certificate, so a bad file stops the start
 * instead of failing every orchestrator call later.
 */
export const loadCertificateAuthorities = async (file: string): Promise<readonly string[]> => {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new StartupError(`SDWAN_ORCHESTRATOR_CA_FILE: cannot read ${file} (${error.code ?? error.message})`);
  });
  const certificates = text.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0) throw new StartupError(`SDWAN_ORCHESTRATOR_CA_FILE: ${file} holds no PEM certificate`);
  certificates.forEach((pem, index) => {
    try {
      new X509Certificate(pem);
    } catch {
      throw new StartupError(`SDWAN_ORCHESTRATOR_CA_FILE: certificate ${index + 1} in ${file} cannot be read`);
    }
  });
  return certificates;
};

/** The orchestrator-portal HTTP client, with the configured deadline, host allowlist and CAs; closed on shutdown. */
export const portalOrchestratorModule = async (config: Config) => {
  const ca = config.orchestratorCaFile === undefined ? undefined : await loadCertificateAuthorities(config.orchestratorCaFile);
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Orchestrator)
      .toConstantValue(
        createPortalOrchestrator({
          timeoutMs: config.orchestratorTimeoutMs,
          allowedHosts: config.orchestratorAllowedHosts,
          ...(ca === undefined ? {} : { ca }),
        }),
      )
      .onDeactivation((orchestrator) => {
        if ("close" in orchestrator && typeof orchestrator.close === "function") orchestrator.close();
      });
  });
};
