import { createInMemoryStorage, type InMemoryConnectionStore, type Orchestrator } from "@sdwan-connections/core";
import { createInMemoryConnectionStore } from "@sdwan-connections/core/testing";
import { ContainerModule } from "inversify";
import { TOKENS } from "../src/tokens.js";

/** Connections in a Map (a shared `store` models a restart): for drivers' tests and benchmarks, never production wiring. */
export const inMemoryStorageModule = (store: InMemoryConnectionStore = createInMemoryConnectionStore()) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Storage)
      .toDynamicValue((context) => createInMemoryStorage({ store, failureWindowMs: context.get(TOKENS.Config).loginWindowMs }))
      .inSingletonScope();
  });

/** Any orchestrator port implementation, e.g. core's in-memory fake: for tests. */
export const orchestratorModule = (orchestrator: Orchestrator) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Orchestrator).toConstantValue(orchestrator);
  });
