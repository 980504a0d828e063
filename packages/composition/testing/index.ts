import {
  createInMemoryFailureCounter,
  createInMemoryHealthLedger,
  createInProcessConnectionChanges,
  createProcessKeyFingerprints,
  type Orchestrator,
} from "@sdwan-connections/core";
import {
  createInMemoryConnectionRepository,
  createInMemoryConnectionStore,
  type InMemoryConnectionStore,
} from "@sdwan-connections/core/testing";
import { ContainerModule } from "inversify";
import { TOKENS } from "../src/tokens.js";

/** Connections in a Map (a shared `store` models a restart): for drivers' tests and benchmarks, never production wiring. */
export const inMemoryStorageModule = (store: InMemoryConnectionStore = createInMemoryConnectionStore()) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Storage)
      .toDynamicValue((context) => ({
        repository: createInMemoryConnectionRepository(store),
        changes: createInProcessConnectionChanges(),
        fingerprints: createProcessKeyFingerprints(),
        audit: store.audit,
        health: createInMemoryHealthLedger(),
        failures: createInMemoryFailureCounter({ windowMs: context.get(TOKENS.Config).loginWindowMs }),
        close: async () => undefined,
      }))
      .inSingletonScope();
  });

/** Any orchestrator port implementation, e.g. core's in-memory fake: for tests. */
export const orchestratorModule = (orchestrator: Orchestrator) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Orchestrator).toConstantValue(orchestrator);
  });
