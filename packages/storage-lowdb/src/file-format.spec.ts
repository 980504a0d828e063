import type { Alias, OrchestratorUrl } from "@sdwan-connections/core";
import { createKeyring, masterKey } from "@sdwan-connections/secrets";
import * as E from "fp-ts/lib/Either.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseConnectionsFile, serializedLength, serializeInto, storedConnection, type StoredConnection } from "./file-format.js";

const keyring = createKeyring({ current: masterKey(Buffer.alloc(32, 3)) });
const serialize = (connections: ReadonlyMap<string, StoredConnection>, scratch = Buffer.alloc(serializedLength(connections))): string =>
  serializeInto(connections, scratch.subarray(0, serializedLength(connections))).toString("utf8");
const mapOf = (records: { alias: string; url: string; key: string }[]) =>
  new Map(records.map(({ alias, url, key }) => [alias.toLowerCase(), storedConnection(alias as Alias, url as OrchestratorUrl, keyring.seal(key, alias.toLowerCase()))]));

const aliasArbitrary = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,20}$/);
const urlArbitrary = fc.constantFrom("https://vco.example.net/", "http://10.0.0.1:8080/api", "https://ünï.example.net/p?q=1");

describe("the file format", () => {
  it("reads back exactly what it wrote, in order, for any connections", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.record({ alias: aliasArbitrary, url: urlArbitrary, key: fc.string({ minLength: 1 }) }), { selector: (r) => r.alias.toLowerCase(), maxLength: 20 }), (records) => {
        const connections = mapOf(records);
        const parsed = parseConnectionsFile(serialize(connections), "connections.json");
        if (E.isLeft(parsed)) throw new Error(parsed.left._tag);
        expect([...parsed.right.connections.entries()].map(([key, c]) => [key, c.alias, c.orchestratorUrl, c.sealedApiKey])).toEqual(
          [...connections.entries()].map(([key, c]) => [key, c.alias, c.orchestratorUrl, c.sealedApiKey]),
        );
      }),
      { numRuns: 50 },
    );
  });

  it("writes an empty store as an empty list", () => {
    expect(JSON.parse(serialize(new Map()))).toEqual({ format: "sdwan-connections/connections", version: 1, connections: [] });
  });

  it("gives the same bytes into a reused, larger and dirty buffer", () => {
    const connections = mapOf([{ alias: "Lab", url: "https://vco.example.net/", key: "k" }]);
    const dirty = Buffer.alloc(serializedLength(connections) + 100, 0x7b);
    expect(serialize(connections, dirty)).toBe(serialize(connections));
  });
});
