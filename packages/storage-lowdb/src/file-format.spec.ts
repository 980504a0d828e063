import type { Alias, OrchestratorUrl } from "@sdwan-connections/core";
import { createKeyring, masterKey } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  parseConnectionsFile,
  serializedLength,
  serializeInto,
  storedConnection,
  type StoredConnection,
} from "./file-format.js";

const keyring = createKeyring({ current: masterKey(Buffer.alloc(32, 3)) });
const serialize = (
  connections: ReadonlyMap<string, StoredConnection>,
  scratch?: Buffer,
  lastVersion = Math.max(0, ...[...connections.values()].map((c) => c.version)),
): string => {
  const state = { connections, lastVersion };
  return serializeInto(
    state,
    (scratch ?? Buffer.alloc(serializedLength(state))).subarray(0, serializedLength(state)),
  ).toString("utf8");
};
const mapOf = (records: { alias: string; url: string; key: string; version?: number }[]) =>
  new Map(
    records.map(({ alias, url, key, version = 1 }) => [
      alias.toLowerCase(),
      storedConnection({
        alias: alias as Alias,
        orchestratorUrl: url as OrchestratorUrl,
        sealedApiKey: keyring.seal(key, alias.toLowerCase()),
        version,
        apiKeySetAt: version % 2 === 0 ? null : "2026-11-22T10:00:00.123Z",
      }),
    ]),
  );

const aliasArbitrary = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/);
const urlArbitrary = fc.constantFrom(
  "https://vco.example.net/",
  "http://10.0.0.1:8080/api",
  "https://ünï.example.net/p?q=1",
);

describe("the file format", () => {
  it("reads back exactly what it wrote, in order, for any connections", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            alias: aliasArbitrary,
            url: urlArbitrary,
            key: fc.string({ minLength: 1 }),
            version: fc.integer({ min: 1, max: 2 ** 40 }),
          }),
          { selector: (r) => r.alias.toLowerCase(), maxLength: 20 },
        ),
        (records) => {
          const connections = mapOf(records);
          const parsed = parseConnectionsFile(serialize(connections), "connections.json");
          if (E.isLeft(parsed)) throw new Error(parsed.left._tag);
          expect(
            [...parsed.right.connections.entries()].map(([key, c]) => [
              key,
              c.alias,
              c.orchestratorUrl,
              c.sealedApiKey,
              c.version,
              c.apiKeySetAt,
            ]),
          ).toEqual(
            [...connections.entries()].map(([key, c]) => [
              key,
              c.alias,
              c.orchestratorUrl,
              c.sealedApiKey,
              c.version,
              c.apiKeySetAt,
            ]),
          );
        },
      ),
      { numRuns: 50 },
    );
  });

  it("writes an empty store as an empty list", () => {
    expect(JSON.parse(serialize(new Map()))).toEqual({
      format: "sdwan-connections/connections",
      version: 5,
      lastVersion: 0,
      connections: [],
    });
  });

  it("keeps the last version given, and never reads it below a stored connection's version", () => {
    const connections = mapOf([{ alias: "Lab", url: "https://vco.example.net/", key: "k", version: 4 }]);
    const parsed = parseConnectionsFile(serialize(connections, undefined, 41), "connections.json");
    expect(E.isRight(parsed) && parsed.right.lastVersion).toBe(41);
    const low = parseConnectionsFile(serialize(connections, undefined, 2), "connections.json");
    expect(E.isRight(low) && low.right.lastVersion).toBe(4);
  });

  it("reads a version 2 file, its last version the greatest stored", () => {
    const sealedApiKey = keyring.seal("k", "lab");
    const record = { orchestratorUrl: "https://vco.example.net/", sealedApiKey, apiKeySetAt: null };
    const v2 = JSON.stringify({
      format: "sdwan-connections/connections",
      version: 2,
      connections: [
        { alias: "Lab", version: 7, ...record },
        { alias: "b", version: 3, ...record, sealedApiKey: keyring.seal("k", "b") },
      ],
    });
    const parsed = parseConnectionsFile(v2, "connections.json");
    if (E.isLeft(parsed)) throw new Error(parsed.left._tag);
    expect(parsed.right.lastVersion).toBe(7);
    expect(parsed.right.connections.get("lab")).toMatchObject({ version: 7 });
  });

  it("version 5 keeps a reference in place of a sealed key, exactly one of the two; version 4 still reads", () => {
    const reference = storedConnection({
      alias: "Lab" as Alias,
      orchestratorUrl: "https://vco.example.net/" as OrchestratorUrl,
      apiKeyRef: "file:lab" as never,
      version: 2,
      apiKeySetAt: null,
    });
    const text = serialize(new Map([["lab", reference]]));
    expect(text).toContain('"apiKeyRef":"file:lab"');
    expect(text).not.toContain("sealedApiKey");
    const parsed = parseConnectionsFile(text, "connections.json");
    expect(E.isRight(parsed) && parsed.right.connections.get("lab")?.apiKeyRef).toBe("file:lab");
    const record = { alias: "Lab", orchestratorUrl: "https://vco.example.net/", version: 1, apiKeySetAt: null };
    const file = (version: number, fields: object) =>
      JSON.stringify({
        format: "sdwan-connections/connections",
        version,
        lastVersion: 1,
        connections: [{ ...record, ...fields }],
      });
    const sealedApiKey = keyring.seal("k", "lab");
    expect(E.isRight(parseConnectionsFile(file(4, { sealedApiKey }), "connections.json"))).toBe(true);
    expect(E.isLeft(parseConnectionsFile(file(4, { apiKeyRef: "file:lab" }), "connections.json"))).toBe(true);
    expect(E.isLeft(parseConnectionsFile(file(5, { sealedApiKey, apiKeyRef: "file:lab" }), "connections.json"))).toBe(
      true,
    );
    expect(E.isLeft(parseConnectionsFile(file(5, {}), "connections.json"))).toBe(true);
  });

  it("reads a version 1 file: each connection at version 1, its key date unknown", () => {
    const sealedApiKey = keyring.seal("k", "lab");
    const v1 = JSON.stringify({
      format: "sdwan-connections/connections",
      version: 1,
      connections: [{ alias: "Lab", orchestratorUrl: "https://vco.example.net/", sealedApiKey }],
    });
    const parsed = parseConnectionsFile(v1, "connections.json");
    if (E.isLeft(parsed)) throw new Error(parsed.left._tag);
    expect(parsed.right.connections.get("lab")).toMatchObject({
      alias: "Lab",
      sealedApiKey,
      version: 1,
      apiKeySetAt: null,
    });
  });

  it("refuses a version that is not a positive integer and a key date that is not an ISO time, naming the field only", () => {
    const sealedApiKey = keyring.seal("k", "lab");
    const file = (record: object) =>
      JSON.stringify({
        format: "sdwan-connections/connections",
        version: 3,
        lastVersion: 9,
        connections: [{ alias: "Lab", orchestratorUrl: "https://vco.example.net/", sealedApiKey, ...record }],
      });
    for (const [record, field] of [
      [{ version: 0, apiKeySetAt: null }, "connections.0.version"],
      [{ version: 1.5, apiKeySetAt: null }, "connections.0.version"],
      [{ version: 1, apiKeySetAt: "yesterday" }, "connections.0.apiKeySetAt"],
      [{ version: 1 }, "connections.0.apiKeySetAt"],
    ] as const) {
      const parsed = parseConnectionsFile(file(record), "connections.json");
      expect(E.isLeft(parsed) && parsed.left._tag === "FileCorrupt" && parsed.left.reason).toContain(field);
    }
  });

  it("gives the same bytes into a reused, larger and dirty buffer", () => {
    const connections = mapOf([{ alias: "Lab", url: "https://vco.example.net/", key: "k" }]);
    const dirty = Buffer.alloc(serializedLength({ connections, lastVersion: 1 }) + 100, 0x7b);
    expect(serialize(connections, dirty)).toBe(serialize(connections));
  });

  it("keeps keyRenewal only when auto (format 5), and reads a format 4 file as every key's renewal off", () => {
    const [lab] = [...mapOf([{ alias: "Lab", url: "https://vco.example.net/", key: "k" }]).values()];
    const auto = storedConnection({ ...lab!, keyRenewal: "auto" });
    const text = serialize(new Map([["lab", auto]]));
    expect(text).toContain('"keyRenewal":"auto"');
    expect(
      E.map(
        (state: { connections: ReadonlyMap<string, StoredConnection> }) => state.connections.get("lab")?.keyRenewal,
      )(parseConnectionsFile(text, "c.json")),
    ).toEqual(E.right("auto"));
    const v4 = serialize(new Map([["lab", lab!]])).replace('"version":5', '"version":4');
    expect(
      E.map(
        (state: { connections: ReadonlyMap<string, StoredConnection> }) => state.connections.get("lab")?.keyRenewal,
      )(parseConnectionsFile(v4, "c.json")),
    ).toEqual(E.right(undefined));
    // A format 4 file cannot say it (its reader would not know the field).
    expect(E.isLeft(parseConnectionsFile(text.replace('"version":5', '"version":4'), "c.json"))).toBe(true);
  });
});
