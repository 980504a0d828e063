import * as E from "fp-ts/lib/Either.js";
import { createCore, describeError, type Orchestrator } from "@sdwan-connections/core";
import type { Keyring } from "@sdwan-connections/secrets";
import { openPostgresStorage } from "@sdwan-connections/storage-postgres";

/** What a composition root does with SDWAN_STORAGE=postgres. */
export async function startOnPostgres(databaseUrl: string, keyring: Keyring, orchestrator: Orchestrator) {
  const storage = await openPostgresStorage({
    databaseUrl,
    keyring,
    onError: (line) => process.stderr.write(`${line}\n`),
  })();
  if (E.isLeft(storage)) throw new Error(describeError(storage.left)); // never contains the URL or its password

  // The store's `changes` make every instance drop its customers cache for a connection another instance updated or deleted.
  const service = createCore({ storage: storage.right, orchestrator });
  return {
    service,
    stop: async () => {
      await service.dispose();
      await storage.right.close();
    },
  };
}
