import { TOKENS } from "@sdwan-connections/composition";
import { CONSOLE_DIRECTORY } from "@sdwan-connections/console";
import { ContainerModule } from "inversify";
import { createApp } from "./app.js";
import { HTTP_TOKENS } from "./tokens.js";

/** The express app over the connection service. `authenticate: false` serves without credentials (benchmarks only). */
export const httpModule = (options: { readonly authenticate?: boolean } = {}) =>
  new ContainerModule(({ bind }) => {
    bind(HTTP_TOKENS.Lifecycle).toConstantValue({ draining: false });
    bind(HTTP_TOKENS.App)
      .toDynamicValue(async (context) => {
        const storage = await context.getAsync(TOKENS.Storage);
        const lifecycle = context.get(HTTP_TOKENS.Lifecycle);
        return createApp({
          service: await context.getAsync(TOKENS.ConnectionService),
          logger: context.get(TOKENS.Logger),
          metrics: await context.getAsync(TOKENS.Metrics),
          auth: options.authenticate === false ? undefined : await context.getAsync(HTTP_TOKENS.Auth),
          ready: async () => (await storage.repository.ping()())._tag === "Right",
          draining: () => lifecycle.draining,
          healthIntervalMs: context.get(TOKENS.Config).healthIntervalMs,
          consoleDirectory: context.get(TOKENS.Config).console ? CONSOLE_DIRECTORY : undefined,
        });
      })
      .inSingletonScope();
  });
