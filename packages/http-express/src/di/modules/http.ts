import { ContainerModule } from "inversify";
import { createApp } from "../../app.js";
import { TOKENS } from "../tokens.js";

/** The express app over the connection service. `authenticate: false` serves without credentials (benchmarks only). */
export const httpModule = (options: { readonly authenticate?: boolean } = {}) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.App)
      .toDynamicValue((context) => {
        const storage = context.get(TOKENS.Storage);
        const lifecycle = context.get(TOKENS.Lifecycle);
        const auth = context.get(TOKENS.Auth);
        return createApp({
          service: context.get(TOKENS.ConnectionService),
          logger: context.get(TOKENS.Logger),
          metrics: context.get(TOKENS.Metrics),
          auth: options.authenticate === false ? undefined : auth,
          ready: async () => (await storage.repository.ping()())._tag === "Right",
          draining: () => lifecycle.draining,
        });
      })
      .inSingletonScope();
  });
