import { ContainerModule } from "inversify";
import { serviceFor } from "../parts/service.js";
import { TOKENS } from "../tokens.js";

/** The use cases (see `serviceFor`) over whichever storage and orchestrator modules were loaded; measured when metrics are bound. */
export const coreModule = () =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.ConnectionService)
      .toDynamicValue(async (context) =>
        serviceFor({
          config: context.get(TOKENS.Config),
          storage: await context.getAsync(TOKENS.Storage),
          orchestrator: await context.getAsync(TOKENS.Orchestrator),
          logger: context.get(TOKENS.Logger),
          metrics: await context.getAsync(TOKENS.Metrics, { optional: true }),
          clock: context.get(TOKENS.Clock),
        }),
      )
      .inSingletonScope()
      .onDeactivation((service) => service.dispose());
  });
