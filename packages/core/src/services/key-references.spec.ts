import * as E from "fp-ts/lib/Either.js";
import * as TE from "fp-ts/lib/TaskEither.js";
import { describe, expect, it } from "vitest";
import { createInMemoryOrchestrator, TEST_KEYS, TEST_PARTNER_ID, TEST_CUSTOMER_ID } from "../../testing/index.js";
import { ApiKey } from "../domain/api-key.js";
import { createInMemoryStorage } from "../adapters/memory-storage.js";
import { createCore } from "./core.js";
import type { KeyReader } from "./key-reader.js";

// A reader over a map the test changes, as an operator's secret manager changes a file.
const mapReader = (keys: Map<string, string>): KeyReader => ({
  read: (reference) => {
    const key = keys.get(reference);
    return key === undefined ? TE.left(`${reference}: cannot be read (ENOENT)`) : TE.right(ApiKey.unsafeFrom(key));
  },
});

const world = () => {
  const orchestrator = createInMemoryOrchestrator([
    { apiKey: TEST_KEYS.partner, identity: { kind: "partner", partnerId: TEST_PARTNER_ID } },
    { apiKey: TEST_KEYS.customer, identity: { kind: "customer", customerId: TEST_CUSTOMER_ID } },
  ]);
  const storage = createInMemoryStorage();
  const keys = new Map<string, string>([["file:lab", TEST_KEYS.partner]]);
  const service = createCore({
    storage,
    orchestrator,
    keyReferences: { reader: mapReader(keys), rereadIntervalMs: 60_000 },
  });
  return { orchestrator, storage, keys, service };
};
const body = { alias: "lab", orchestratorUrl: "https://vco.example.net/", apiKeyRef: "file:lab" };

describe("keys kept elsewhere in the service (SPEC §12)", () => {
  it("validates the key read, stores only the reference, and answers the key read now", async () => {
    const { storage, keys, service } = world();
    expect(await service.connections.add(body)()).toEqual(E.right("added"));
    const stored = await storage.repository.get("lab" as never)();
    expect(E.isRight(stored) && stored.right.apiKeyRef).toBe("file:lab");
    expect(E.isRight(stored) && stored.right.apiKey.problem).toBeDefined();
    keys.set("file:lab", TEST_KEYS.customer);
    const validated = await service.connections.validate("lab")();
    expect(E.isRight(validated) && validated.right.valid && validated.right.type).toBe("customer");
  });

  it("refuses a reference that cannot be read (400 naming apiKeyRef); an unreadable key later is invalid without a call", async () => {
    const { orchestrator, keys, service } = world();
    const refused = await service.connections.add({ ...body, apiKeyRef: "file:none" }, { force: true })();
    expect(refused).toEqual(
      E.left({ _tag: "InvalidInput", errors: [{ field: "apiKeyRef", message: "file:none: cannot be read (ENOENT)" }] }),
    );
    await service.connections.add(body)();
    keys.delete("file:lab");
    const calls = orchestrator.calls.identify;
    const validated = await service.connections.validate("lab")();
    expect(validated).toMatchObject(E.right({ valid: false, reason: "file:lab: cannot be read (ENOENT)" }));
    expect(orchestrator.calls.identify).toBe(calls);
  });

  it("checks a given key against the key read; one that cannot be read now fails the check, never answers a mismatch", async () => {
    const { keys, service } = world();
    await service.connections.add(body)();
    expect(await service.connections.checkKey("lab", { apiKey: TEST_KEYS.partner })()).toEqual(
      E.right({ matches: true }),
    );
    keys.delete("file:lab");
    // Regression: compared with the empty key, the right key was answered `matches: false` (and audited a mismatch).
    expect(await service.connections.checkKey("lab", { apiKey: TEST_KEYS.partner })()).toEqual(
      E.left({
        _tag: "StorageFailure",
        reason: "The key kept elsewhere cannot be read: file:lab: cannot be read (ENOENT)",
      }),
    );
  });

  it("a key given replaces the reference, and a reference the key", async () => {
    const { storage, service } = world();
    await service.connections.add(body)();
    await service.connections.update("lab", { apiKey: TEST_KEYS.customer })();
    const withKey = await storage.repository.get("lab" as never)();
    expect(E.isRight(withKey) && [withKey.right.apiKeyRef, withKey.right.apiKey.reveal()]).toEqual([
      undefined,
      TEST_KEYS.customer,
    ]);
    expect(await service.connections.update("lab", { apiKeyRef: "file:lab" })()).toEqual(E.right("updated"));
    const withReference = await storage.repository.get("lab" as never)();
    expect(E.isRight(withReference) && withReference.right.apiKeyRef).toBe("file:lab");
    expect(await service.connections.update("lab", { apiKeyRef: "file:lab" })()).toEqual(E.right("unchanged"));
  });

  it("refuses to put a key elsewhere while its renewal is on, naming keyRenewal, until the same request turns it off", async () => {
    const { storage, service } = world();
    await service.connections.add({ ...body, apiKeyRef: undefined, apiKey: TEST_KEYS.partner, keyRenewal: "auto" })();
    // Regression: the renewal went off without a word (the audit entry and the event said only apiKeyRef).
    expect(await service.connections.update("lab", { apiKeyRef: "file:lab" })()).toEqual(
      E.left({
        _tag: "InvalidInput",
        errors: [
          {
            field: "keyRenewal",
            message: "must be off for a key kept elsewhere (apiKeyRef): whoever keeps it rotates it",
          },
        ],
      }),
    );
    const unchanged = await storage.repository.get("lab" as never)();
    expect(E.isRight(unchanged) && [unchanged.right.apiKeyRef, unchanged.right.keyRenewal]).toEqual([
      undefined,
      "auto",
    ]);
    expect(await service.connections.update("lab", { apiKeyRef: "file:lab", keyRenewal: "off" })()).toEqual(
      E.right("updated"),
    );
  });

  it("the watch validates a key that changed, once per change, and tells a changed outcome as a health change", async () => {
    const { orchestrator, keys, service } = world();
    await service.connections.add(body)();
    const watch = service.health.keyReferences;
    if (watch === undefined) throw new Error("a reader was given");
    const added = orchestrator.calls.identify;
    await watch.round();
    expect(orchestrator.calls.identify).toBe(added + 1); // first seen by this watch: validated once
    const before = orchestrator.calls.identify;
    await watch.round();
    expect(orchestrator.calls.identify).toBe(before); // nothing changed: nothing asked
    keys.set("file:lab", "a-key-nobody-knows");
    await watch.round();
    expect(orchestrator.calls.identify).toBe(before + 1);
    const health = await service.health.list()();
    expect(E.isRight(health) && health.right.map(({ state }) => state)).toEqual(["invalid"]);
    await service.dispose();
  });
});
