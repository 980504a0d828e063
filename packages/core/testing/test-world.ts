import {
  createCore,
  createInMemoryStorage,
  type Clock,
  type CoreOptions,
  type Customer,
  type Storage,
} from "../src/index.js";
import { aCustomer } from "./builders.js";
import { createInMemoryOrchestrator } from "./in-memory-orchestrator.js";

/** Keys the test world's orchestrator knows. */
export const TEST_KEYS = {
  partner: "partner-key-7f3a9c",
  customer: "customer-key-42b1e0",
  refused: "refused-key-000000",
} as const;

export const TEST_PARTNER_ID = 7;
export const TEST_CUSTOMER_ID = 342;

/** A clock that moves only when told to. */
export const createManualClock = (start = 1_700_000_000_000): Clock & { advance(ms: number): void } => {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
};

/**
 * A connection service over the in-memory adapters, with an orchestrator that
 * knows one partner key (with two customers) and one customer key.
 */
export const createTestWorld = ({
  changes,
  ...options
}: Partial<Pick<CoreOptions, "customersCacheTtlMs"> & Pick<Storage, "changes">> = {}) => {
  const partnerCustomers: readonly Customer[] = [
    aCustomer({ id: 1, name: "ACME_HQ", enterpriseId: "0b5f7a4e-1111-4c1e-9a57-0a1b2c3d4e5f" }),
    aCustomer({ id: 2, name: "ACME_BRANCH", enterpriseId: "0b5f7a4e-2222-4c1e-9a57-0a1b2c3d4e5f", latitude: null }),
  ];
  const storage = createInMemoryStorage();
  const { repository } = storage;
  const orchestrator = createInMemoryOrchestrator([
    {
      apiKey: TEST_KEYS.partner,
      identity: { kind: "partner", partnerId: TEST_PARTNER_ID },
      customers: partnerCustomers,
    },
    { apiKey: TEST_KEYS.customer, identity: { kind: "customer", customerId: TEST_CUSTOMER_ID } },
  ]);
  const clock = createManualClock();
  const service = createCore({
    storage: { ...storage, changes: changes ?? storage.changes },
    orchestrator,
    clock,
    ...options,
  });
  return { repository, orchestrator, clock, service, partnerCustomers };
};
