import { ContainerModule } from "inversify";
import type { Config } from "../config.js";
import { openPostgresStorageFor } from "../parts/storage.js";
import { orFail } from "../startup-error.js";
import { TOKENS } from "../tokens.js";

/** PostgreSQL (see `openPostgresStorageFor`): closed (pool ended, listener released) when unbound. */
export const postgresStorageModule = (config: Config, databaseUrl: string) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Storage)
      .toDynamicValue(async (context) => orFail(await openPostgresStorageFor(config, databaseUrl, context.get(TOKENS.Logger))()))
      .inSingletonScope()
      .onDeactivation((storage) => storage.close());
  });
