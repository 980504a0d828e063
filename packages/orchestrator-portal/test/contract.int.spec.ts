import { describeOrchestratorContract } from "@sdwan-connections/core/contract";
import {
  loadSampleDataset,
  startOrchestratorSimulator,
  withJwtKeys,
  type OrchestratorSimulator,
} from "@sdwan-connections/orchestrator-simulator";
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
      // The sample's keys as orchestrators hand them out (JWTs naming their token), two of them without the right to renew.
      const sample = await loadSampleDataset();
      const stuck = ["sample-partner-key-3", "sample-customer-key-3-1"];
      const { data, keyOf } = withJwtKeys({
        ...sample,
        apiTokens: (sample.apiTokens ?? []).map((token) =>
          stuck.includes(token.key) ? { ...token, renews: false } : token,
        ),
      });
      simulator = await startOrchestratorSimulator({ prefix, data });
      const at = (key: string) => targetFor(simulator.url, keyOf(key));
      orchestrator = createPortalOrchestrator({ timeoutMs: 5_000, allowedHosts: undefined });
      const partner = simulator.data.partners[0];
      if (partner === undefined) throw new Error("sample has no partner");
      return {
        orchestrator,
        partner: at(SAMPLE_PARTNER_KEY),
        partnerCustomers: partner.enterprises.map(expectedCustomer),
        // Without the trailing slash, to exercise both spellings.
        customer: targetFor(simulator.url.replace(/\/$/, ""), keyOf(SAMPLE_CUSTOMER_KEY)),
        refused: targetFor(simulator.url, "sample-revoked-key-0000"),
        partnerTokens: tokensOf(simulator, [keyOf(SAMPLE_PARTNER_KEY)]),
        customerTokens: tokensOf(simulator, [keyOf(SAMPLE_CUSTOMER_KEY)]),
        withoutTokenRight: at("sample-customer-key-1-2"),
        renewing: { partner: at("sample-partner-key-2"), customer: at("sample-customer-key-2-1") },
        withoutRenewRight: { partner: at(stuck[0] as string), customer: at(stuck[1] as string) },
      };
    },
    teardown: async () => {
      orchestrator.close();
      await simulator.stop();
    },
  });
}
