import { expect, it } from "vitest";
import { ApiKey, type Alias, type ApiKeyRef, type ConnectionRepository } from "../src/index.js";
import { aConnection } from "../testing/builders.js";
import { expectRight as run } from "../testing/run.js";

const lab = "lab" as Alias;
const READ_KEY = "key-read-from-the-reference-9f8e7d";
const STORED_KEY = "key-stored-in-the-store-1a2b3c";

/**
 * Keys kept elsewhere (SPEC §12), as every store keeps them: the reference, never the key read from it (core reads
 * it when used); a key given alone replaces the reference, a reference replaces the key, and lists name the reference.
 */
export const keyReferenceCases = (repository: () => ConnectionRepository, peek: () => Promise<string>): void => {
  it("keeps only the reference of a key kept elsewhere, never the key read from it", async () => {
    const reference = "file:team/lab" as ApiKeyRef;
    await run(repository().insert({ ...aConnection({ alias: "lab", apiKey: READ_KEY }), apiKeyRef: reference }));
    const stored = await run(repository().get(lab));
    expect(stored.apiKeyRef).toBe(reference);
    expect(stored.apiKey.problem).toBeDefined();
    expect(stored.apiKey.reveal()).not.toBe(READ_KEY);
    expect((await run(repository().list())).find(({ alias }) => alias === "lab")?.apiKeyRef).toBe(reference);
    const persisted = await peek();
    expect(persisted).toContain(reference);
    expect(persisted).not.toContain(READ_KEY);
  });

  it("a key given alone replaces the reference, a reference the key; the same reference changes nothing", async () => {
    await run(
      repository().insert({ ...aConnection({ alias: "lab" }), apiKeyRef: "env:SDWAN_APIKEY_LAB" as ApiKeyRef }),
    );
    const withKey = await run(repository().update(lab, { apiKey: ApiKey.unsafeFrom(STORED_KEY) }));
    expect([withKey.apiKeyRef, withKey.apiKey.reveal()]).toEqual([undefined, STORED_KEY]);
    const reread = await run(repository().get(lab));
    expect([reread.apiKeyRef, reread.apiKey.reveal()]).toEqual([undefined, STORED_KEY]);
    const withReference = await run(repository().update(lab, { apiKeyRef: "file:lab" as ApiKeyRef }));
    expect(withReference.apiKeyRef).toBe("file:lab");
    expect(withReference.version).toBeGreaterThan(withKey.version);
    const same = await run(repository().update(lab, { apiKeyRef: "file:lab" as ApiKeyRef }));
    expect(same.version).toBe(withReference.version);
    const moved = await run(repository().update(lab, { orchestratorUrl: "https://other.example.net/" as never }));
    expect(moved.apiKeyRef).toBe("file:lab");
    expect(await peek()).not.toContain(STORED_KEY);
  });
};
