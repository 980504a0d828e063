import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnectionService } from "@sdwan-connections/core";
import { aConnection, createInMemoryOrchestrator, expectRight } from "@sdwan-connections/core/testing";
import { openPostgresStorage } from "../examples/postgres-storage.js";
import { aKeyring, startPostgres, type StartedPostgres } from "./postgres-container.js";

let postgres: StartedPostgres;

beforeAll(async () => {
  postgres = await startPostgres({ label: "storage-postgres" });
});

afterAll(async () => {
  await postgres?.stop();
});

describe("the README's wiring example", () => {
  it("is quoted verbatim in the README", async () => {
    const [readme, example] = await Promise.all([
      readFile(new URL("../README.md", import.meta.url), "utf8"),
      readFile(new URL("../examples/postgres-storage.ts", import.meta.url), "utf8"),
    ]);
    expect(readme).toContain(example.trim());
  });

  it("serves a connection service, and closes", async () => {
    const warnings: string[] = [];
    const storage = await openPostgresStorage(postgres.connectionString, aKeyring(), (line) => warnings.push(line));
    try {
      const service = createConnectionService({
        repository: storage.repository,
        changes: storage.changes,
        orchestrator: createInMemoryOrchestrator([{ apiKey: "partner-secret", identity: { kind: "partner", partnerId: 7 }, customers: [] }]),
      });
      expect(await expectRight(service.addConnection({ alias: "lab", orchestratorUrl: "https://vco.example.net/", apiKey: "partner-secret" }))).toBe("added");
      expect(await expectRight(service.listConnections())).toEqual([{ alias: "lab", orchestratorUrl: "https://vco.example.net/" }]);
      await expectRight(storage.repository.ping());
      service.dispose();
    } finally {
      await storage.close();
    }
    expect(warnings).toEqual([]);
  });

  it("stops the start with one line that does not show the password", async () => {
    const url = postgres.connectionString.replace(postgres.password, "wrong-password-xyz");
    const failure = await openPostgresStorage(url, aKeyring(), () => undefined).then(
      () => "opened",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(failure).toBe("Storage failure while migrating the schema: PostgreSQL refused the credentials (SQLSTATE 28P01).");
  });

  it("stops the start when the master key is not the one the connections were stored with", async () => {
    const url = await postgres.database("sealed_elsewhere"); // the other tests' rows use other keys
    const first = await openPostgresStorage(url, aKeyring(), () => undefined);
    await expectRight(first.repository.insert(aConnection({ alias: "sealed-elsewhere" })));
    await first.close();
    const failure = await openPostgresStorage(url, aKeyring(), () => undefined).then(
      () => "opened",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(failure).toMatch(/^The database holds apiKeys sealed with master key id\(s\) [0-9a-f]{8}, .*: wrong master key\./);
  });
});
