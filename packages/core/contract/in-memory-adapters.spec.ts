import {
  ApiKey,
  createInProcessConnectionChanges,
  createProcessKeyFingerprints,
  hmacFingerprints,
  type Identity,
  type OrchestratorUrl,
} from "../src/index.js";
import { describeConnectionChangesContract } from "./connection-changes-contract.js";
import { aCustomer, aJwt } from "../testing/builders.js";
import { describeConnectionRepositoryContract } from "./connection-repository-contract.js";
import {
  createInMemoryConnectionRepository,
  createInMemoryConnectionStore,
} from "../src/adapters/memory-connection-repository.js";
import { createInMemoryOrchestrator } from "../testing/in-memory-orchestrator.js";
import { describeAuditLogContract } from "./audit-log-contract.js";
import { createInMemoryAuditLog } from "../src/adapters/memory-audit-log.js";
import { describeHealthLedgerContract } from "./health-ledger-contract.js";
import { createInMemoryHealthLedger } from "../src/adapters/memory-health-ledger.js";
import { describeRenewalLedgerContract } from "./renewal-ledger-contract.js";
import { createInMemoryRenewalLedger } from "../src/adapters/memory-renewal-ledger.js";
import { describeFailureCounterContract } from "./failure-counter-contract.js";
import { createInMemoryFailureCounter } from "../src/adapters/memory-failure-counter.js";
import { describeKeyFingerprintsContract } from "./key-fingerprints-contract.js";
import { describeOrchestratorContract } from "./orchestrator-contract.js";
import { describeStorageContract } from "./storage-contract.js";
import { describeServiceTokenStoreContract } from "./service-token-store-contract.js";
import { createInMemoryServiceTokenStore } from "../src/adapters/memory-service-token-store.js";
import { describeGrantStoreContract } from "./grant-store-contract.js";
import { createInMemoryGrantStore } from "../src/adapters/memory-grant-store.js";
import { createInMemoryStorage } from "../src/adapters/memory-storage.js";
import { describeWebhookStoreContract } from "./webhook-store-contract.js";

let store = createInMemoryConnectionStore();

describeConnectionRepositoryContract("InMemoryConnectionRepository", {
  make: async () => createInMemoryConnectionRepository(store),
  reset: async () => {
    store = createInMemoryConnectionStore();
  },
  // What the Map holds, serialised: ApiKey objects serialise as "[redacted]".
  peek: async () => JSON.stringify([...store.connections.values()]),
  audit: async () => store.audit,
});

const target = (apiKey: string) => ({
  orchestratorUrl: "http://127.0.0.1:1/" as OrchestratorUrl,
  apiKey: ApiKey.unsafeFrom(apiKey),
});
const partnerCustomers = [aCustomer({ id: 1, name: "ONE" }), aCustomer({ id: 2, name: "TWO", latitude: null })];
const partnerTokens = [{ id: 1, tokenUuid: "9c1b", expiresAt: new Date("2027-06-11T00:00:00Z") }];
const customerTokens = [{ id: 2, tokenUuid: "4e2a", expiresAt: undefined }];

// Renewal's keys are tokens (JWTs with their uuid), listed with an id as the orchestrator lists them.
const renewalKeys = {
  partner: aJwt({ tokenUuid: "r-partner" }),
  customer: aJwt({ tokenUuid: "r-customer" }),
  stuckPartner: aJwt({ tokenUuid: "s-partner" }),
  stuckCustomer: aJwt({ tokenUuid: "s-customer" }),
};
const renewalAccounts = [
  { apiKey: renewalKeys.partner, identity: { kind: "partner", partnerId: 8 }, uuid: "r-partner" },
  { apiKey: renewalKeys.customer, identity: { kind: "customer", customerId: 344 }, uuid: "r-customer" },
  { apiKey: renewalKeys.stuckPartner, identity: { kind: "partner", partnerId: 9 }, uuid: "s-partner", mayRenew: false },
  {
    apiKey: renewalKeys.stuckCustomer,
    identity: { kind: "customer", customerId: 345 },
    uuid: "s-customer",
    mayRenew: false,
  },
].map(({ uuid, ...account }, index) => ({
  ...account,
  identity: account.identity as Identity,
  apiTokens: [{ id: 20 + index, tokenUuid: uuid, expiresAt: undefined }],
}));

describeOrchestratorContract("InMemoryOrchestrator", {
  setup: async () => ({
    orchestrator: createInMemoryOrchestrator([
      {
        apiKey: "partner-key",
        identity: { kind: "partner", partnerId: 7 },
        customers: partnerCustomers,
        apiTokens: partnerTokens,
      },
      { apiKey: "customer-key", identity: { kind: "customer", customerId: 342 }, apiTokens: customerTokens },
      { apiKey: "customer-key-2", identity: { kind: "customer", customerId: 343 } },
      ...renewalAccounts,
    ]),
    partner: target("partner-key"),
    partnerCustomers,
    customer: target("customer-key"),
    refused: target("refused-key"),
    partnerTokens,
    customerTokens,
    withoutTokenRight: target("customer-key-2"),
    renewing: { partner: target(renewalKeys.partner), customer: target(renewalKeys.customer) },
    withoutRenewRight: { partner: target(renewalKeys.stuckPartner), customer: target(renewalKeys.stuckCustomer) },
  }),
});

// core's own fingerprints: HMAC under a fixed secret, as a deployment's; the process default is another deployment.
describeKeyFingerprintsContract("hmacFingerprints", {
  make: () => hmacFingerprints(Buffer.alloc(32, 7)),
  makeElsewhere: createProcessKeyFingerprints,
});

// One array per store; `reset` starts a new one. (In memory, a second log is the same object: one process.)
let auditLog: ReturnType<typeof createInMemoryAuditLog> | undefined;
describeAuditLogContract("InMemoryAuditLog", {
  make: async (retention) => (auditLog ??= createInMemoryAuditLog(retention)),
  reset: async () => {
    auditLog = undefined;
  },
});

let healthLedger: ReturnType<typeof createInMemoryHealthLedger> | undefined;
describeHealthLedgerContract("InMemoryHealthLedger", {
  make: async () => (healthLedger ??= createInMemoryHealthLedger()),
  reset: async () => {
    healthLedger = undefined;
  },
});

// One process: every "instance" is the same emitter.
const processChanges = createInProcessConnectionChanges();
describeConnectionChangesContract("InProcessConnectionChanges", { make: async () => processChanges });
// One map per store: counters made between two resets share it, as the instances of one process would.
let failureWindows: Map<number, ReturnType<typeof createInMemoryFailureCounter>> = new Map();
describeFailureCounterContract("InMemoryFailureCounter", {
  make: async (windowMs) => {
    const counter = failureWindows.get(windowMs) ?? createInMemoryFailureCounter({ windowMs });
    failureWindows.set(windowMs, counter);
    return counter;
  },
  reset: async () => {
    failureWindows = new Map();
  },
});

// Reopening in memory is a new storage over the same store.
let storageStore = createInMemoryConnectionStore();
describeStorageContract("InMemoryStorage", {
  open: async () => createInMemoryStorage({ store: storageStore }),
  reset: async () => {
    storageStore = createInMemoryConnectionStore();
  },
});

let serviceTokens: ReturnType<typeof createInMemoryServiceTokenStore> | undefined;
describeServiceTokenStoreContract("InMemoryServiceTokenStore", {
  make: async () => (serviceTokens ??= createInMemoryServiceTokenStore()),
  reset: async () => {
    serviceTokens = undefined;
  },
});

let grants: ReturnType<typeof createInMemoryGrantStore> | undefined;
describeGrantStoreContract("InMemoryGrantStore", {
  make: async () => (grants ??= createInMemoryGrantStore()),
  reset: async () => {
    grants = undefined;
  },
});

let webhooksStore = createInMemoryConnectionStore();
describeWebhookStoreContract("InMemoryWebhookStore", {
  open: async () => createInMemoryStorage({ store: webhooksStore }),
  reset: async () => {
    webhooksStore = createInMemoryConnectionStore();
  },
});

let renewalLedger: ReturnType<typeof createInMemoryRenewalLedger> | undefined;
describeRenewalLedgerContract("InMemoryRenewalLedger", {
  make: async () => (renewalLedger ??= createInMemoryRenewalLedger()),
  reset: async () => {
    renewalLedger = undefined;
  },
});
