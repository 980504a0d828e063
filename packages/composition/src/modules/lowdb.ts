import { ContainerModule } from "inversify";
import type { Config } from "../config.js";
import { openLowdbStorageFor } from "../parts/storage.js";
import { orFail } from "../startup-error.js";
import { TOKENS } from "../tokens.js";

/** The embedded store (see `openLowdbStorageFor`): opened when first resolved, closed (pending writes flushed, lock released) when unbound. */
export const lowdbStorageModule = (config: Config) =>
  new ContainerModule(({ bind }) => {
    bind(TOKENS.Storage)
      .toDynamicValue(async (context) => orFail(await openLowdbStorageFor(config, context.get(TOKENS.Logger))()))
      .inSingletonScope()
      .onDeactivation((storage) => storage.close());
  });
