import * as E from "fp-ts/lib/Either.js";
import { createCore, createInMemoryStorage, describeError } from "@sdwan-connections/core";
import { createInMemoryOrchestrator } from "@sdwan-connections/core/testing";

export async function embed(): Promise<string[]> {
  const service = createCore({
    storage: createInMemoryStorage(), // everything in this process: gone when it exits
    orchestrator: createInMemoryOrchestrator([
      { apiKey: "partner-secret", identity: { kind: "partner", partnerId: 7 }, customers: [] },
    ]),
    customersCacheTtlMs: 60_000,
  });

  const added = await service.connections.add({
    alias: "lab",
    orchestratorUrl: "https://vco.example.net/",
    apiKey: "partner-secret",
  })();
  const validated = await service.connections.validate("LAB")();
  const refused = await service.connections.add({ alias: "bad alias" })();

  return [
    E.isRight(added) ? added.right : describeError(added.left), // "added"
    E.isRight(validated)
      ? JSON.stringify(validated.right, ["alias", "valid", "type", "version"])
      : describeError(validated.left),
    E.isLeft(refused) ? describeError(refused.left) : "unexpected",
  ];
}
