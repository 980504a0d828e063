import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeError } from "@sdwan-connections/core";
import { aConnection, createInMemoryOrchestrator, expectLeft, expectRight } from "@sdwan-connections/core/testing";
import { openPostgresStorage } from "../src/index.js";
import { startOnPostgres } from "../examples/postgres-storage.js";
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

  it("serves a connection service, and stops", async () => {
    const orchestrator = createInMemoryOrchestrator([
      { apiKey: "partner-secret", identity: { kind: "partner", partnerId: 7 }, customers: [] },
    ]);
    const { service, stop } = await startOnPostgres(postgres.connectionString, aKeyring(), orchestrator);
    try {
      expect(
        await expectRight(
          service.connections.add({
            alias: "lab",
            orchestratorUrl: "https://vco.example.net/",
            apiKey: "partner-secret",
          }),
        ),
      ).toBe("added");
      expect(await expectRight(service.connections.list())).toEqual([
        { alias: "lab", orchestratorUrl: "https://vco.example.net/" },
      ]);
    } finally {
      await stop();
    }
  });
});

describe("openPostgresStorage", () => {
  it("refuses to open with one line that does not show the password", async () => {
    const url = postgres.connectionString.replace(postgres.password, "wrong-password-xyz");
    const error = await expectLeft(openPostgresStorage({ databaseUrl: url, keyring: aKeyring() }));
    expect(describeError(error)).toBe(
      "Storage failure while connecting: PostgreSQL refused the credentials (SQLSTATE 28P01).",
    );
  });

  it("refuses to open when the master key is not the one the connections were stored with", async () => {
    const databaseUrl = await postgres.database("sealed_elsewhere"); // the other tests' rows use other keys
    const first = await expectRight(openPostgresStorage({ databaseUrl, keyring: aKeyring() }));
    await expectRight(first.repository.insert(aConnection({ alias: "sealed-elsewhere" })));
    await expectRight(first.repository.ping());
    await first.close();
    const error = await expectLeft(openPostgresStorage({ databaseUrl, keyring: aKeyring() }));
    expect(describeError(error)).toMatch(
      /^The database holds apiKeys sealed with master key id\(s\) [0-9a-f]{8}, .*: wrong master key\./,
    );
  });
});
