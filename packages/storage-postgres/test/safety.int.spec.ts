import { randomBytes } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Alias, ConnectionRepository, DomainError } from "@sdwan-connections/core";
import { aConnection, expectLeft, expectRight } from "@sdwan-connections/core/testing";
import { createKeyring, masterKey } from "@sdwan-connections/secrets";
import { createPostgresConnectionRepository, migrate, rotateKeys, verifyMasterKeys } from "../src/index.js";
import { aKeyring, aPool, startPostgres, type StartedPostgres } from "./postgres-container.js";

let postgres: StartedPostgres;
let raw: pg.Pool;
const pools: pg.Pool[] = [];
const keyring = aKeyring();
let repository: ConnectionRepository;

const SECRET = "s3cr3t-api-key-that-must-never-leak";
const alias = (value: string) => value as Alias;
const pool = (url: string) => {
  const created = aPool(url, 2);
  pools.push(created);
  return created;
};
/** Everything about an error that could reach a client or a log. */
const exposed = (error: DomainError) => JSON.stringify(error);

beforeAll(async () => {
  postgres = await startPostgres({ label: "storage-postgres" });
  raw = pool(postgres.connectionString);
  await expectRight(migrate(raw));
  repository = createPostgresConnectionRepository({ pool: raw, keyring });
});

beforeEach(async () => {
  await raw.query("truncate connections");
});

afterAll(async () => {
  try {
    await Promise.allSettled(pools.map((p) => p.end()));
  } finally {
    await postgres?.stop(); // even when closing failed: never leave a container behind
  }
});

describe("stored rows are outside input", () => {
  it("reports a corrupt sealed apiKey as a StorageFailure naming the connection, not the value", async () => {
    const corrupt = `v1.${keyring.currentKeyId}.${"A".repeat(16)}.${"B".repeat(22)}.${Buffer.from(SECRET).toString("base64url")}`;
    await raw.query("insert into connections (alias_key, alias, orchestrator_url, api_key) values ($1, $2, $3, $4)", [
      "lab",
      "lab",
      "https://vco.example.net",
      corrupt,
    ]);
    const error = await expectLeft(repository.get(alias("lab")));
    expect(error).toEqual({
      _tag: "StorageFailure",
      reason: expect.stringMatching(/connection 'lab' cannot be opened: .*failed authentication/),
    });
    expect(exposed(error)).not.toContain(corrupt.split(".")[4]);
    // Listing does not open keys, so one bad key does not hide the other connections.
    expect(await expectRight(repository.list())).toEqual([
      { alias: "lab", orchestratorUrl: "https://vco.example.net" },
    ]);
  });

  it("refuses a sealed apiKey moved onto another connection", async () => {
    await expectRight(repository.insert(aConnection({ alias: "lab", apiKey: SECRET })));
    await expectRight(repository.insert(aConnection({ alias: "prod", apiKey: "prod-key" })));
    await raw.query(
      "update connections set api_key = (select api_key from connections where alias_key = 'lab') where alias_key = 'prod'",
    );
    const error = await expectLeft(repository.get(alias("prod")));
    expect(error._tag).toBe("StorageFailure");
    expect(exposed(error)).not.toContain(SECRET);
  });

  it("reports a row that breaks the domain rules, naming the column and not the value", async () => {
    await raw.query("insert into connections (alias_key, alias, orchestrator_url, api_key) values ($1, $2, $3, $4)", [
      "lab",
      "lab",
      "javascript:alert(1)",
      keyring.seal(SECRET, "lab"),
    ]);
    for (const error of [await expectLeft(repository.get(alias("lab"))), await expectLeft(repository.list())]) {
      expect(error).toEqual({ _tag: "StorageFailure", reason: expect.stringContaining("orchestrator_url") });
      expect(exposed(error)).not.toContain("javascript:");
      expect(exposed(error)).not.toContain(SECRET);
    }
  });

  it("keeps the database itself from storing a plain apiKey or a mis-keyed alias", async () => {
    const insert = (values: string[]) =>
      raw.query(
        "insert into connections (alias_key, alias, orchestrator_url, api_key) values ($1, $2, $3, $4)",
        values,
      );
    await expect(insert(["lab", "lab", "https://x.example.net", SECRET])).rejects.toMatchObject({ code: "23514" });
    await expect(insert(["lab", "LAB-2", "https://x.example.net", keyring.seal(SECRET, "lab")])).rejects.toMatchObject({
      code: "23514",
    });
  });
});

describe("master keys", () => {
  it("says clearly when the master key is not the one the keys were sealed with", async () => {
    await expectRight(repository.insert(aConnection({ alias: "lab", apiKey: SECRET })));
    const other = createPostgresConnectionRepository({ pool: raw, keyring: aKeyring() });
    const error = await expectLeft(other.get(alias("lab")));
    expect(error).toEqual({
      _tag: "StorageFailure",
      reason: expect.stringMatching(
        new RegExp(`sealed with master key ${keyring.currentKeyId}.*wrong or missing master key`),
      ),
    });
  });

  it("rotates every key to the current master key, once", async () => {
    const oldKey = masterKey(randomBytes(32));
    const newKey = masterKey(randomBytes(32));
    const before = createPostgresConnectionRepository({ pool: raw, keyring: createKeyring({ current: oldKey }) });
    for (const name of ["a", "b", "c"])
      await expectRight(before.insert(aConnection({ alias: name, apiKey: `${SECRET}-${name}` })));
    const rotating = createKeyring({ current: newKey, previous: [oldKey] });
    expect(await expectLeft(verifyMasterKeys(raw, createKeyring({ current: newKey })))).toEqual({
      _tag: "StorageFailure",
      reason: expect.stringContaining(
        `sealed with master key id(s) ${oldKey.id}, but the configured key id(s) are ${newKey.id}: wrong master key`,
      ),
    });
    await expectRight(verifyMasterKeys(raw, rotating));
    expect(await expectRight(rotateKeys(raw, rotating))).toEqual({ rotated: 3, total: 3 });
    expect(await expectRight(rotateKeys(raw, rotating))).toEqual({ rotated: 0, total: 3 });
    await expectRight(verifyMasterKeys(raw, createKeyring({ current: newKey })));
    const { rows } = await raw.query<{ api_key: string }>("select api_key from connections");
    expect(rows.every((row) => row.api_key.startsWith(`v2.${newKey.id}.`))).toBe(true);
    const after = createPostgresConnectionRepository({ pool: raw, keyring: createKeyring({ current: newKey }) });
    expect((await expectRight(after.get(alias("B")))).apiKey.reveal()).toBe(`${SECRET}-b`);
  });

  it("rotates nothing when one key cannot be opened, naming its connection", async () => {
    const oldKey = masterKey(randomBytes(32));
    const old = createKeyring({ current: oldKey });
    for (const name of ["a-fine", "z-stray"]) {
      await expectRight(
        createPostgresConnectionRepository({ pool: raw, keyring: name === "a-fine" ? old : aKeyring() }).insert(
          aConnection({ alias: name, apiKey: SECRET }),
        ),
      );
    }
    const rotating = createKeyring({ current: masterKey(randomBytes(32)), previous: [oldKey] });
    const error = await expectLeft(rotateKeys(raw, rotating));
    expect(error).toEqual({
      _tag: "StorageFailure",
      reason: expect.stringMatching(
        /connection 'z-stray' cannot be opened.*wrong or missing master key.*nothing was re-sealed/,
      ),
    });
    const { rows } = await raw.query<{ api_key: string }>("select api_key from connections where alias_key = 'a-fine'");
    expect(rows[0]?.api_key.startsWith(`v2.${old.currentKeyId}.`)).toBe(true);
  });
});

describe("every statement is parameterised", () => {
  it("stores and finds hostile text as plain data", async () => {
    const hostile = "x'); drop table connections; --";
    const hostileUrl = "https://vco.example.net/?q=';drop table connections;--";
    // The Alias codec would refuse this: cast, to show the SQL does not depend on it.
    await expectRight(
      repository.insert(aConnection({ alias: hostile, orchestratorUrl: hostileUrl, apiKey: "k'; --" })),
    );
    const { rows } = await raw.query("select alias, orchestrator_url from connections where alias_key = lower($1)", [
      hostile,
    ]);
    expect(rows).toEqual([{ alias: hostile, orchestrator_url: hostileUrl }]);
    // Reading it back refuses the row (stored rows are decoded like any input); deleting needs no decoding.
    expect((await expectLeft(repository.get(alias(hostile.toUpperCase()))))._tag).toBe("StorageFailure");
    await expectRight(repository.delete(alias(hostile)));
    expect((await raw.query("select count(*)::int as n from connections")).rows).toEqual([{ n: 0 }]);
  });
});

describe("database failures", () => {
  it("become StorageFailures that never show the URL, its password or an apiKey", async () => {
    const password = "hunter2-Very-Secret";
    const unreachable = pool(`postgres://sdwan:${password}@127.0.0.1:1/sdwan`);
    const wrongPassword = pool(postgres.connectionString.replace(postgres.password, password));
    const cases: [ConnectionRepository, RegExp][] = [
      [
        createPostgresConnectionRepository({ pool: unreachable, keyring }),
        /PostgreSQL cannot be reached \(ECONNREFUSED\)/,
      ],
      [
        createPostgresConnectionRepository({ pool: wrongPassword, keyring }),
        /PostgreSQL refused the credentials \(SQLSTATE 28P01\)/,
      ],
    ];
    for (const [broken, expected] of cases) {
      for (const task of [
        broken.get(alias("lab")),
        broken.insert(aConnection({ alias: "lab", apiKey: SECRET })),
        broken.ping(),
      ] as const) {
        const error = await expectLeft<DomainError, unknown>(task);
        expect(error).toEqual({ _tag: "StorageFailure", reason: expect.stringMatching(expected) });
        for (const secret of [password, postgres.password, SECRET, "postgres://", "127.0.0.1"])
          expect(exposed(error)).not.toContain(secret);
      }
    }
  });

  it("makes ping fail on a database that was never migrated", async () => {
    const bare = createPostgresConnectionRepository({ pool: pool(await postgres.database("bare")), keyring });
    expect(await expectLeft(bare.ping())).toEqual({
      _tag: "StorageFailure",
      reason: expect.stringMatching(/run the migrations/),
    });
  });

  it("makes ping fail on a read-only database", async () => {
    const url = await postgres.database("readonly");
    await expectRight(migrate(pool(url)));
    await raw.query('alter database "readonly" set default_transaction_read_only = on');
    const readOnly = createPostgresConnectionRepository({ pool: pool(url), keyring });
    expect(await expectLeft(readOnly.ping())).toEqual({
      _tag: "StorageFailure",
      reason: expect.stringMatching(/read-only/),
    });
  });
});
