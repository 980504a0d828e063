import * as E from "fp-ts/lib/Either.js";
import { beforeEach, describe, expect, it } from "vitest";
import type { TaskEither } from "fp-ts/lib/TaskEither.js";
import {
  ApiKey,
  type Alias,
  type AuditEntry,
  type AuditLog,
  type ConnectionRepository,
  type StoredConnection,
  type DomainError,
  type OrchestratorUrl,
} from "../src/index.js";
import { aConnection, anAuditEntry } from "../testing/builders.js";
import { expectLeft as fail, expectRight as run } from "../testing/run.js";
import { useStoreUnderTest, type StoreUnderTest } from "./store-under-test.js";
import { keyReferenceCases } from "./key-reference-contract.js";

export interface ConnectionRepositoryContractOptions extends StoreUnderTest {
  /**
   * A repository over the store under test. Called more than once: every
   * repository it returns must see the same stored data (as a second process
   * or instance would).
   */
  make(): Promise<ConnectionRepository>;
  /**
   * Everything the store has persisted, as raw text read around the adapter
   * (file bytes, rows fetched with plain SQL), to check what really landed.
   */
  peek(): Promise<string>;
  /** The audit log of the store under test, in which the repository's writes record the entries they are given. */
  audit(): Promise<AuditLog>;
}

const alias = (value: string) => value as Alias;
const url = (value: string) => value as OrchestratorUrl;
const SECRET = "sEcReT-kEy/with+base64=chars-ünïcødé-✓";

/** The behaviour every ConnectionRepository adapter must show; run it from the adapter's own tests. */
export const describeConnectionRepositoryContract = (
  name: string,
  options: ConnectionRepositoryContractOptions,
): void => {
  describe(`${name} satisfies the ConnectionRepository contract`, () => {
    let repository: ConnectionRepository;

    useStoreUnderTest(options);
    beforeEach(async () => {
      repository = await options.make();
    });

    it("returns what was inserted, apiKey included", async () => {
      await run(
        repository.insert(aConnection({ alias: "lab", orchestratorUrl: "https://vco.example.net/", apiKey: SECRET })),
      );
      const stored = await run(repository.get(alias("lab")));
      expect(stored.alias).toBe("lab");
      expect(stored.orchestratorUrl).toBe("https://vco.example.net/");
      expect(stored.apiKey).toBeInstanceOf(ApiKey);
      expect(stored.apiKey.reveal()).toBe(SECRET);
    });

    it("finds an alias in any case and returns it as first given", async () => {
      await run(repository.insert(aConnection({ alias: "Lab-East" })));
      expect((await run(repository.get(alias("lab-EAST")))).alias).toBe("Lab-East");
    });

    it("answers NotFound for an unknown alias", async () => {
      expect(await fail(repository.get(alias("nowhere")))).toEqual({ _tag: "NotFound", alias: "nowhere" });
    });

    it("refuses an alias that exists in another case, keeping the original", async () => {
      await run(repository.insert(aConnection({ alias: "Lab", apiKey: "first-key" })));
      const error = await fail(repository.insert(aConnection({ alias: "LAB", apiKey: "second-key" })));
      expect(error._tag).toBe("AlreadyExists");
      expect((await run(repository.get(alias("lab")))).apiKey.reveal()).toBe("first-key");
    });

    it("lists every connection as alias and URL only", async () => {
      await run(repository.insert(aConnection({ alias: "b", orchestratorUrl: "https://b.example.net" })));
      await run(repository.insert(aConnection({ alias: "A", orchestratorUrl: "http://a.example.net/prefix/" })));
      const listed = await run(repository.list());
      expect([...listed].sort((x, y) => x.alias.localeCompare(y.alias))).toEqual([
        { alias: "A", orchestratorUrl: "http://a.example.net/prefix/" },
        { alias: "b", orchestratorUrl: "https://b.example.net" },
      ]);
    });

    it("keeps the list cache rule: the same list only while nothing changed, and then frozen", async () => {
      const lists = [await run(repository.list())];
      const change: (() => TaskEither<DomainError, unknown>)[] = [
        () => repository.insert(aConnection({ alias: alias("cache-a") })),
        () => repository.update(alias("cache-a"), { orchestratorUrl: url("https://moved.example.net/") }),
        () => repository.delete(alias("CACHE-A")),
      ];
      for (const step of change) {
        const before = await run(repository.list());
        const again = await run(repository.list());
        if (again === before) expect(Object.isFrozen(before)).toBe(true);
        await run(step());
        const after = await run(repository.list());
        expect(after).not.toBe(before);
        lists.push(after);
      }
      expect(lists.map((list) => list.map(({ orchestratorUrl }) => orchestratorUrl))).toEqual([
        [],
        [expect.any(String)],
        ["https://moved.example.net/"],
        [],
      ]);
    });

    it("lists nothing when empty", async () => {
      expect(await run(repository.list())).toEqual([]);
    });

    it("updates only the fields given", async () => {
      await run(
        repository.insert(aConnection({ alias: "lab", orchestratorUrl: "https://old.example.net", apiKey: "old-key" })),
      );
      const moved = await run(repository.update(alias("LAB"), { orchestratorUrl: url("https://new.example.net/") }));
      expect(moved.alias).toBe("lab");
      expect(moved.orchestratorUrl).toBe("https://new.example.net/");
      expect(moved.apiKey.reveal()).toBe("old-key");
      await run(repository.update(alias("lab"), { apiKey: ApiKey.unsafeFrom("new-key") }));
      const stored = await run(repository.get(alias("lab")));
      expect(stored.orchestratorUrl).toBe("https://new.example.net/");
      expect(stored.apiKey.reveal()).toBe("new-key");
    });

    it("keeps `keyRenewal` (SPEC §12): `off` unless set, kept across other changes, a change of it a new version", async () => {
      await run(repository.insert(aConnection({ alias: "plain" })));
      expect((await run(repository.get(alias("plain")))).keyRenewal).toBe("off");
      await run(repository.insert({ ...aConnection({ alias: "lab", apiKey: "old-key" }), keyRenewal: "auto" }));
      const added = await run(repository.get(alias("lab")));
      expect(added.keyRenewal).toBe("auto");
      const rekeyed = await run(repository.update(alias("lab"), { apiKey: ApiKey.unsafeFrom("new-key") }));
      expect(rekeyed.keyRenewal).toBe("auto");
      expect((await run(repository.get(alias("lab")))).keyRenewal).toBe("auto");
      const same = await run(repository.update(alias("lab"), { keyRenewal: "auto" }));
      expect(same.version).toBe(rekeyed.version);
      const off = await run(repository.update(alias("lab"), { keyRenewal: "off" }, [rekeyed.version]));
      expect(off.version).toBeGreaterThan(rekeyed.version);
      expect((await run(repository.get(alias("lab")))).keyRenewal).toBe("off");
      expect((await run(repository.get(alias("lab")))).apiKey.reveal()).toBe("new-key");
    });

    it("answers NotFound when updating an unknown alias", async () => {
      const error = await fail(repository.update(alias("ghost"), { apiKey: ApiKey.unsafeFrom("k") }));
      expect(error._tag).toBe("NotFound");
    });

    it("deletes in any case, after which the alias is free", async () => {
      await run(repository.insert(aConnection({ alias: "Lab" })));
      await run(repository.delete(alias("lab")));
      expect((await fail(repository.get(alias("Lab"))))._tag).toBe("NotFound");
      await run(repository.insert(aConnection({ alias: "LAB" })));
      expect((await run(repository.get(alias("lab")))).alias).toBe("LAB");
    });

    it("answers NotFound when deleting an unknown alias", async () => {
      expect((await fail(repository.delete(alias("ghost"))))._tag).toBe("NotFound");
    });

    it("keeps the longest allowed key and URL exactly", async () => {
      const longKey = "k".repeat(8191) + "✓";
      const longUrl = `https://vco.example.net/${"p".repeat(2048 - 24)}`;
      await run(repository.insert(aConnection({ alias: "x".repeat(64), orchestratorUrl: longUrl, apiKey: longKey })));
      const stored = await run(repository.get(alias("X".repeat(64))));
      expect(stored.apiKey.reveal()).toBe(longKey);
      expect(stored.orchestratorUrl).toBe(longUrl);
    });

    it("keeps data for every repository over the same store, and shows each its changes at once, with their versions", async () => {
      await run(repository.insert(aConnection({ alias: "lab", apiKey: SECRET })));
      const before = (await run(repository.get(alias("lab")))).version;
      const other = await options.make();
      expect((await run(other.get(alias("lab")))).apiKey.reveal()).toBe(SECRET);
      // The customers cache relies on it: a list is cached for one version, read from the repository before each request.
      const moved = await run(other.update(alias("lab"), { orchestratorUrl: url("https://moved.example.net") }));
      expect(moved.version).toBeGreaterThan(before);
      expect(await run(repository.get(alias("lab")))).toMatchObject({
        orchestratorUrl: "https://moved.example.net",
        version: moved.version,
      });
    });

    it("never persists an apiKey in plain text, base64 or hex", async () => {
      await run(repository.insert(aConnection({ alias: "lab", apiKey: SECRET })));
      await run(repository.update(alias("lab"), { orchestratorUrl: url("https://moved.example.net") }));
      const persisted = await options.peek();
      expect(persisted).toContain("lab");
      for (const encoding of ["utf8", "base64", "base64url", "hex"] as const) {
        expect(persisted).not.toContain(encoding === "utf8" ? SECRET : Buffer.from(SECRET).toString(encoding));
      }
    });

    it("loses no insert when many run at once", async () => {
      const aliases = Array.from({ length: 50 }, (_, i) => `conn-${i}`);
      await Promise.all(aliases.map((a) => run(repository.insert(aConnection({ alias: a })))));
      expect((await run(repository.list())).map((c) => c.alias).sort()).toEqual([...aliases].sort());
    });

    it("lets exactly one of many concurrent inserts of one alias win", async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          repository.insert(aConnection({ alias: i % 2 === 0 ? "race" : "RACE" }))(),
        ),
      );
      expect(results.filter(E.isRight)).toHaveLength(1);
      expect(results.filter(E.isLeft).map((r) => r.left._tag)).toEqual(Array(9).fill("AlreadyExists"));
    });

    it("loses neither of two concurrent updates of different fields", async () => {
      await run(
        repository.insert(aConnection({ alias: "lab", orchestratorUrl: "https://old.example.net", apiKey: "old-key" })),
      );
      const other = await options.make();
      await Promise.all([
        run(repository.update(alias("lab"), { orchestratorUrl: url("https://new.example.net") })),
        run(other.update(alias("lab"), { apiKey: ApiKey.unsafeFrom("new-key") })),
      ]);
      const stored = await run(repository.get(alias("lab")));
      expect(stored.orchestratorUrl).toBe("https://new.example.net");
      expect(stored.apiKey.reveal()).toBe("new-key");
    });

    it("dates a new connection's key now, and gives it a greater version with every change", async () => {
      const before = Date.now();
      await run(repository.insert(aConnection({ alias: "lab" })));
      const added = await run(repository.get(alias("lab")));
      expect(added.version).toBeGreaterThanOrEqual(1);
      // A database's clock may round differently from this process's: a second's slack.
      expect(added.apiKeySetAt?.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(added.apiKeySetAt?.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
      const moved = await run(repository.update(alias("lab"), { orchestratorUrl: url("https://moved.example.net") }));
      expect(moved.version).toBeGreaterThan(added.version);
      expect(moved.apiKeySetAt).toEqual(added.apiKeySetAt);
      await new Promise((done) => setTimeout(done, 5));
      const rekeyed = await run(repository.update(alias("lab"), { apiKey: ApiKey.unsafeFrom("new-key") }));
      expect(rekeyed.version).toBeGreaterThan(moved.version);
      expect(rekeyed.apiKeySetAt?.getTime()).toBeGreaterThan(added.apiKeySetAt?.getTime() ?? Infinity);
      expect(await run(repository.get(alias("LAB")))).toMatchObject({
        version: rekeyed.version,
        apiKeySetAt: rekeyed.apiKeySetAt,
      });
    });

    it("never gives an alias added again a version of its earlier life, so an expected version from then matches nothing", async () => {
      const seen: number[] = [];
      for (let life = 0; life < 3; life += 1) {
        await run(
          repository.insert(
            aConnection({ alias: life % 2 === 0 ? "lab" : "LAB", orchestratorUrl: "https://vco.example.net" }),
          ),
        );
        seen.push((await run(repository.get(alias("lab")))).version);
        seen.push(
          (await run(repository.update(alias("lab"), { orchestratorUrl: url(`https://life-${life}.example.net`) })))
            .version,
        );
        await run(repository.delete(alias("lab")));
      }
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort((a, b) => a - b)).toEqual(seen);
      await run(repository.insert(aConnection({ alias: "lab" })));
      const reborn = await run(repository.get(alias("lab")));
      expect(reborn.version).toBeGreaterThan(Math.max(...seen));
      expect(
        (await fail(repository.update(alias("lab"), { orchestratorUrl: url("https://stale.example.net") }, seen)))._tag,
      ).toBe("VersionMismatch");
      expect((await fail(repository.delete(alias("lab"), seen)))._tag).toBe("VersionMismatch");
      const other = await options.make();
      await run(other.delete(alias("lab")));
      await run(other.insert(aConnection({ alias: "lab" })));
      expect((await run(repository.get(alias("lab")))).version).toBeGreaterThan(reborn.version);
    });

    it("keeps the version, the key's date and the list of an update that changes nothing", async () => {
      await run(
        repository.insert(aConnection({ alias: "lab", orchestratorUrl: "https://vco.example.net/", apiKey: SECRET })),
      );
      const stored = await run(repository.get(alias("lab")));
      const listed = await run(repository.list());
      await new Promise((done) => setTimeout(done, 5));
      const same = await run(
        repository.update(
          alias("LAB"),
          { orchestratorUrl: url("https://vco.example.net/"), apiKey: ApiKey.unsafeFrom(SECRET) },
          [stored.version],
        ),
      );
      expect(same).toMatchObject({
        version: stored.version,
        apiKeySetAt: stored.apiKeySetAt,
        orchestratorUrl: "https://vco.example.net/",
      });
      expect(same.apiKey.reveal()).toBe(SECRET);
      expect((await run(repository.update(alias("lab"), { apiKey: ApiKey.unsafeFrom(SECRET) }))).version).toBe(
        stored.version,
      );
      expect(await run(repository.get(alias("lab")))).toMatchObject({
        version: stored.version,
        apiKeySetAt: stored.apiKeySetAt,
      });
      const again = await run(repository.list());
      if (again === listed) expect(Object.isFrozen(listed)).toBe(true);
      expect(again).toEqual(listed);
      const changed = await run(
        repository.update(alias("lab"), {
          apiKey: ApiKey.unsafeFrom("another-key"),
          orchestratorUrl: url("https://vco.example.net/"),
        }),
      );
      expect(changed.version).toBeGreaterThan(stored.version);
    });

    it("keeps a key's declared expiry; a change to it is a change, the same one keeps the version, and a new key without one clears it", async () => {
      const expiresAt = new Date("2027-01-31T00:00:00.000Z");
      await run(repository.insert({ ...aConnection({ alias: "lab", apiKey: "key-1" }), apiKeyExpiresAt: expiresAt }));
      const stored = await run(repository.get(alias("lab")));
      expect(stored.apiKeyExpiresAt?.toISOString()).toBe(expiresAt.toISOString());
      const same = await run(repository.update(alias("lab"), { apiKeyExpiresAt: new Date(expiresAt.getTime()) }));
      expect(same.version).toBe(stored.version);
      const later = await run(
        repository.update(alias("lab"), { apiKeyExpiresAt: new Date("2027-02-28T00:00:00.000Z") }),
      );
      expect(later.version).toBeGreaterThan(stored.version);
      expect((await run(repository.get(alias("lab")))).apiKeyExpiresAt?.toISOString()).toBe("2027-02-28T00:00:00.000Z");
      // The same key again keeps its date; the URL alone too.
      await run(
        repository.update(alias("lab"), {
          apiKey: ApiKey.unsafeFrom("key-1"),
          orchestratorUrl: url("https://other.example.net/"),
        }),
      );
      expect((await run(repository.get(alias("lab")))).apiKeyExpiresAt?.toISOString()).toBe("2027-02-28T00:00:00.000Z");
      const renewed = await run(repository.update(alias("lab"), { apiKey: ApiKey.unsafeFrom("key-2") }));
      expect(renewed.apiKeyExpiresAt).toBeUndefined();
      expect((await run(repository.get(alias("lab")))).apiKeyExpiresAt).toBeUndefined();
      await run(repository.update(alias("lab"), { apiKey: ApiKey.unsafeFrom("key-3"), apiKeyExpiresAt: expiresAt }));
      expect((await run(repository.get(alias("lab")))).apiKeyExpiresAt?.toISOString()).toBe(expiresAt.toISOString());
      await run(repository.insert(aConnection({ alias: "plain" })));
      expect((await run(repository.get(alias("plain")))).apiKeyExpiresAt).toBeUndefined();
    });

    it("updates and deletes at an expected version only, and changes nothing at another", async () => {
      await run(repository.insert(aConnection({ alias: "lab", orchestratorUrl: "https://old.example.net" })));
      const added = (await run(repository.get(alias("lab")))).version;
      expect(
        await fail(
          repository.update(alias("lab"), { orchestratorUrl: url("https://new.example.net") }, [added + 1, added + 2]),
        ),
      ).toEqual({
        _tag: "VersionMismatch",
        alias: "lab",
        version: added,
      });
      expect((await fail(repository.delete(alias("LAB"), [added + 7])))._tag).toBe("VersionMismatch");
      expect(await run(repository.get(alias("lab")))).toMatchObject({
        orchestratorUrl: "https://old.example.net",
        version: added,
      });
      const moved = (
        await run(repository.update(alias("lab"), { orchestratorUrl: url("https://new.example.net") }, [added]))
      ).version;
      await run(repository.delete(alias("lab"), [moved]));
      expect((await fail(repository.get(alias("lab"))))._tag).toBe("NotFound");
      expect((await fail(repository.update(alias("lab"), {}, [moved])))._tag).toBe("NotFound");
      expect((await fail(repository.delete(alias("lab"), [moved])))._tag).toBe("NotFound");
    });

    it("lets exactly one of many concurrent writers at the same expected version win", async () => {
      await run(repository.insert(aConnection({ alias: "lab" })));
      const added = (await run(repository.get(alias("lab")))).version;
      const others = await Promise.all(Array.from({ length: 3 }, () => options.make()));
      const writers = [repository, ...others];
      const results = await Promise.all(
        writers.flatMap((writer, i) => [
          writer.update(alias("lab"), { orchestratorUrl: url(`https://writer-${i}.example.net`) }, [added])(),
          writer.update(alias("lab"), { apiKey: ApiKey.unsafeFrom(`key-${i}`) }, [added])(),
        ]),
      );
      expect(results.filter(E.isRight)).toHaveLength(1);
      expect(results.filter(E.isLeft).map((result) => result.left._tag)).toEqual(Array(7).fill("VersionMismatch"));
      expect((await run(repository.get(alias("lab")))).version).toBeGreaterThan(added);
    });

    it("records the entry a write is given with its change, the version and orchestrator URL it left or removed, visible through the store's audit log and from every repository", async () => {
      const other = await options.make();
      const entries: AuditEntry[] = [];
      // The entry given to a write; the store records it, or `recordedAs` it (a thunk: the version is known once written).
      const recordedAs: (() => Partial<AuditEntry>)[] = [];
      const entry = (overrides: Partial<AuditEntry>, as: () => Partial<AuditEntry> = () => ({})) => {
        const made = anAuditEntry({ alias: alias("lab"), ...overrides });
        entries.push(made);
        recordedAs.push(as);
        return made;
      };
      await run(
        repository.insert(
          aConnection({ alias: "lab", apiKey: SECRET }),
          entry({ action: "add", fields: ["alias", "orchestratorUrl", "apiKey"] }, () => ({
            version: added.version,
            orchestratorUrl: added.orchestratorUrl,
          })),
        ),
      );
      const added = await run(other.get(alias("lab")));
      const moved: StoredConnection = await run(
        other.update(
          alias("lab"),
          { orchestratorUrl: url("https://moved.example.net") },
          [added.version],
          entry({ action: "update", fields: ["orchestratorUrl"] }, () => ({
            version: moved.version,
            orchestratorUrl: moved.orchestratorUrl,
          })),
        ),
      );
      // An update that changes nothing still answers a request that succeeded: its entry is recorded too, as what it
      // is, an attempt that changed nothing (regression: it counted as a change, and 300 of them pushed changes out).
      await run(
        repository.update(
          alias("lab"),
          { apiKey: ApiKey.unsafeFrom(SECRET) },
          undefined,
          entry({ action: "update", fields: ["apiKey"] }, () => ({
            outcome: "unchanged",
            version: moved.version,
            orchestratorUrl: moved.orchestratorUrl,
          })),
        ),
      );
      await run(
        repository.resealKeys(entry({ action: "rotate-master-key", alias: null, fields: [], validation: "not-asked" })),
      );
      await run(
        other.delete(
          alias("LAB"),
          undefined,
          // The removed connection's URL: its events tell it once the connection is gone (SPEC §9).
          entry({ action: "delete", fields: [], validation: "not-asked" }, () => ({
            version: moved.version,
            orchestratorUrl: moved.orchestratorUrl,
          })),
        ),
      );
      expect(added.version).toBeLessThan(moved.version);
      expect(moved.orchestratorUrl).not.toBe(added.orchestratorUrl);
      const audit = await options.audit();
      expect(await run(audit.list({ limit: 100 }))).toEqual(
        entries.map((made, i) => ({ ...made, ...recordedAs[i]?.() })).reverse(),
      );
      expect(JSON.stringify(await run(audit.list({ limit: 100 })))).not.toContain(SECRET);
    });

    // Regression: an update or delete named `lab` recorded `lab`, so its event's subject (and an OpenNMS alarm's
    // reduction key) differed from the add's and the health changes' `Lab` (SPEC §2: the alias as first given).
    it("records the alias as first given in the entry of a write that names it in another case", async () => {
      await run(repository.insert(aConnection({ alias: "Lab" }), anAuditEntry({ action: "add", alias: alias("LAB") })));
      await run(
        repository.update(
          alias("lab"),
          { orchestratorUrl: url("https://moved.example.net") },
          undefined,
          anAuditEntry(),
        ),
      );
      await run(repository.delete(alias("LAB"), undefined, anAuditEntry({ action: "delete", alias: alias("LAB") })));
      const listed = await run((await options.audit()).list({ limit: 10 }));
      expect(listed.map((entry) => [entry.action, entry.alias])).toEqual([
        ["delete", "Lab"],
        ["update", "Lab"],
        ["add", "Lab"],
      ]);
    });

    it("records no entry of a write that fails", async () => {
      await run(repository.insert(aConnection({ alias: "lab" })));
      const version = (await run(repository.get(alias("lab")))).version;
      const failing: (() => TaskEither<DomainError, unknown>)[] = [
        () => repository.insert(aConnection({ alias: "LAB" }), anAuditEntry({ action: "add" })),
        () =>
          repository.update(
            alias("ghost"),
            { orchestratorUrl: url("https://x.example.net") },
            undefined,
            anAuditEntry({ alias: alias("ghost") }),
          ),
        () =>
          repository.update(
            alias("lab"),
            { orchestratorUrl: url("https://x.example.net") },
            [version + 1],
            anAuditEntry(),
          ),
        () => repository.delete(alias("lab"), [version + 1], anAuditEntry({ action: "delete" })),
        () => repository.delete(alias("ghost"), undefined, anAuditEntry({ action: "delete", alias: alias("ghost") })),
      ];
      for (const write of failing) await fail(write());
      expect(await run((await options.audit()).list({ limit: 100 }))).toEqual([]);
    });

    it("misses no entry of many concurrent writes through several repositories, each visible as soon as its write answers", async () => {
      const writers = [repository, await options.make()];
      const audit = await options.audit();
      const missing: string[] = [];
      await Promise.all(
        Array.from({ length: 60 }, async (_, i) => {
          const entry = anAuditEntry({ action: "add", alias: alias(`conn-${i}`) });
          await run((writers[i % 2] as ConnectionRepository).insert(aConnection({ alias: `conn-${i}` }), entry));
          const found = await run(audit.list({ limit: 10, alias: alias(`conn-${i}`) }));
          if (!found.some((listed) => listed.id === entry.id)) missing.push(entry.id);
        }),
      );
      expect(missing).toEqual([]);
      expect(await run(audit.list({ limit: 1000 }))).toHaveLength(60);
    });

    it("is ready when the store is", async () => {
      await run(repository.ping());
    });

    it("re-seals no key already sealed with the current master key, counts every connection, and every key still opens", async () => {
      await run(repository.insert(aConnection({ alias: "one", apiKey: SECRET })));
      await run(repository.insert(aConnection({ alias: "two" })));
      expect(await run(repository.resealKeys())).toEqual({ rotated: 0, total: 2 });
      expect((await run(repository.get(alias("one")))).apiKey.reveal()).toBe(SECRET);
      expect(await options.peek()).not.toContain(SECRET);
    });

    keyReferenceCases(() => repository, options.peek);
  });
};
