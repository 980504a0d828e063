import { describeOrchestratorContract } from "@sdwan-connections/core/contract";
import { startOrchestratorSimulator, type OrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { createPortalOrchestrator, type PortalOrchestrator } from "../src/index.js";
import { expectedCustomer } from "./expected-customer.js";
import { SAMPLE_CUSTOMER_KEY, SAMPLE_PARTNER_KEY, targetFor } from "./helpers.js";

let simulator: OrchestratorSimulator;

/** The tokens the simulator's data puts behind `keys`, as core sees them. */
const tokensOf = (sim: OrchestratorSimulator, keys: readonly string[]) =>
  (sim.data.apiTokens ?? [])
    .filter((token) => keys.includes(token.key))
    .map((token) => ({
      id: sim.tokenOf(token.key)?.id as number,
      tokenUuid: token.tokenUuid,
      expiresAt: new Date(token.expiration),
    }));
let orchestrator: PortalOrchestrator;

for (const prefix of ["", "/vco"]) {
  describeOrchestratorContract(`orchestrator-portal against the simulator${prefix === "" ? "" : ` under ${prefix}`}`, {
    setup: async () => {
      simulator = await startOrchestratorSimulator({ prefix });
      orchestrator = createPortalOrchestrator({ timeoutMs: 5_000, allowedHosts: undefined });
      const partner = simulator.data.partners[0];
      if (partner === undefined) throw new Error("sample has no partner");
      return {
        orchestrator,
        partner: targetFor(simulator.url, SAMPLE_PARTNER_KEY),
        partnerCustomers: partner.enterprises.map(expectedCustomer),
        // Without the trailing slash, to exercise both spellings.
        customer: targetFor(simulator.url.replace(/\/$/, ""), SAMPLE_CUSTOMER_KEY),
        refused: targetFor(simulator.url, "sample-revoked-key-0000"),
        partnerTokens: tokensOf(simulator, [SAMPLE_PARTNER_KEY]),
        customerTokens: tokensOf(simulator, [SAMPLE_CUSTOMER_KEY]),
        withoutTokenRight: targetFor(simulator.url, "sample-customer-key-1-2"),
      };
    },
    teardown: async () => {
      orchestrator.close();
      await simulator.stop();
    },
  });
}
