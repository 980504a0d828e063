import * as E from "fp-ts/lib/Either.js";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type * as TE from "fp-ts/lib/TaskEither.js";
import {
  ApiKey,
  createCore,
  createInMemoryStorage,
  EVERY_CONNECTION,
  WEBHOOK_HISTORY,
  type Alias,
  type AliasPattern,
  type ConnectionChangeNotice,
  type DomainError,
  type OrchestratorUrl,
  type Grant,
  type Subject,
} from "@sdwan-connections/core";
import {
  aConnection,
  aCustomer,
  anAuditEntry,
  aWebhook,
  createInMemoryOrchestrator,
  expectLeft,
  expectRight,
} from "@sdwan-connections/core/testing";
import {
  createPostgresAuditLog,
  createPostgresConnectionChanges,
  createPostgresConnectionRepository,
  createPostgresGrantStore,
  migrate,
  MIGRATIONS,
  openPostgresStorage,
  SCHEMA_VERSION,
  type PostgresConnectionChanges,
} from "../src/index.js";
import { createKeyring, masterKey } from "@sdwan-connections/secrets";
import { randomUUID } from "node:crypto";
import { startOutageProxy } from "../testing/index.js";
import { aKeyring, aPool, startPostgres, type StartedPostgres } from "./postgres-container.js";

// "Instances" here are what two processes of the service would have: their own pools
// and LISTEN connections over one database.
let postgres: StartedPostgres;
const pools: pg.Pool[] = [];
const closers: (() => Promise<void>)[] = [];
const keyring = aKeyring();

const pool = (url = postgres.connectionString) => {
  const created = aPool(url);
  pools.push(created);
  return created;
};
const changesOver = async (
  over: pg.Pool,
  options: { reconnectDelayMs?: number; onError?: (message: string) => void } = {},
) => {
  const changes = await expectRight(
    createPostgresConnectionChanges({
      pool: over,
      listener: { connectionString: postgres.connectionString },
      ...options,
    }),
  );
  closers.push(() => changes.close());
  return changes;
};
const alias = (value: string) => value as Alias;
const url = (value: string) => value as OrchestratorUrl;

beforeAll(async () => {
  postgres = await startPostgres({ label: "storage-postgres" });
  await expectRight(migrate(pool()));
});

afterAll(async () => {
  try {
    for (const close of closers) await close();
    await Promise.allSettled(pools.map((p) => p.end())); // one test ends its pool itself
  } finally {
    await postgres?.stop(); // even when closing failed: never leave a container behind
  }
});

describe("migrate", () => {
  it("lets two instances starting at once both succeed, applying each migration once", async () => {
    for (const round of [1, 2, 3]) {
      const url = await postgres.database(`race_${round}`);
      const [a, b] = [pool(url), pool(url)];
      const [first, second] = await Promise.all([expectRight(migrate(a)), expectRight(migrate(b))]);
      // Migration versions may leave gaps (numbers are handed out to changes made side by side).
      expect([...first.applied, ...second.applied].sort((x, y) => x - y)).toEqual(
        MIGRATIONS.map((migration) => migration.version).sort((x, y) => x - y),
      );
      expect(first.version).toBe(SCHEMA_VERSION);
      expect(second.version).toBe(SCHEMA_VERSION);
      const { rows } = await a.query("select version from schema_migrations");
      expect(rows).toHaveLength(MIGRATIONS.length);
    }
  });

  it("does nothing when run again", async () => {
    expect(await expectRight(migrate(pool()))).toEqual({ applied: [], version: SCHEMA_VERSION });
  });

  it("upgrades connections stored before versions: each at version 1, its key date unknown", async () => {
    const older = pool(await postgres.database("older"));
    await expectRight(migrate(older, MIGRATIONS.slice(0, 1)));
    // What that release stored: a key sealed in format v1 (unpadded), here under the master key of 32 bytes of 1.
    const oldKeyring = createKeyring({ current: masterKey(Buffer.alloc(32, 1)) });
    const before = createPostgresConnectionRepository({ pool: older, keyring: oldKeyring });
    await older.query("insert into connections (alias_key, alias, orchestrator_url, api_key) values ($1, $2, $3, $4)", [
      "lab",
      "Lab",
      "https://vco.example.net/",
      "v1.72cd6e84.I524D3rRxKeWIHV9.DfVSOtHjTY8iJRdZ7NKGHw.d7XzKLffy8rBqAuvyXo8DmarjaO5zRmNXd9zdeb21mjirfW8XoTGXcjFCAg",
    ]);
    expect((await expectRight(migrate(older))).applied).toEqual(expect.arrayContaining([2, 5]));
    const upgraded = await expectRight(before.get(alias("lab")));
    expect(upgraded).toMatchObject({ alias: "Lab", version: 1, apiKeySetAt: null });
    expect(upgraded.apiKey.reveal()).toBe("sEcReT-kEy/with+base64=chars-ünïcødé-✓");
  });

  it("takes over the failed-login table an earlier release let rate-limiter-flexible create; the key column holds v1 and v2 only", async () => {
    const earlier = pool(await postgres.database("earlier_failures"));
    await expectRight(
      migrate(
        earlier,
        MIGRATIONS.filter((migration) => migration.version < 5),
      ),
    );
    await earlier.query(
      "create table sdwan_login_failures (key varchar(255) primary key, points integer not null default 0, expire bigint)",
    );
    await earlier.query("insert into sdwan_login_failures values ('rlflx:client', 3, $1)", [Date.now() + 60_000]);
    expect((await expectRight(migrate(earlier))).applied).toContain(5);
    expect((await earlier.query("select points from sdwan_login_failures")).rows).toEqual([{ points: 3 }]);
    const insert = (apiKey: string) =>
      earlier.query(
        "insert into connections (alias_key, alias, orchestrator_url, api_key) values ($1, $1, 'https://vco.example.net/', $2)",
        [apiKey.slice(0, 2), apiKey],
      );
    await insert("v2.sealed");
    await expect(insert("v3.sealed")).rejects.toMatchObject({ code: "23514" });
  });

  it("trims, once, the webhook delivery history grown before it was bounded: its newest 100 settled kept, every pending one", async () => {
    const grown = pool(await postgres.database("grown_history"));
    await expectRight(
      migrate(
        grown,
        MIGRATIONS.filter((migration) => migration.version < 14),
      ),
    );
    await grown.query(
      `insert into sdwan_webhooks (id, url, types, kind, created_at, secrets)
       values (gen_random_uuid(), 'https://receiver.example/hook', '{*}', 'cloudevents', now(), 'v1.sealed')`,
    );
    // Deliveries 1 to 150, every 50th still pending.
    await grown.query(
      `insert into sdwan_webhook_deliveries (id, webhook_id, event_id, event, status, next_attempt_at)
       select gen_random_uuid(), w.id, n::text as event_id, '{}', case when n % 50 = 0 then 'pending' else 'delivered' end, now()
         from sdwan_webhooks w, generate_series(1, 150) n order by n`,
    );
    expect((await expectRight(migrate(grown))).applied).toContain(14);
    const numbers = Array.from({ length: 150 }, (_, index) => index + 1);
    const newestSettled = numbers.filter((n) => n % 50 !== 0).slice(-100);
    const { rows } = await grown.query<{ event_id: string }>(
      "select event_id from sdwan_webhook_deliveries order by seq",
    );
    expect(rows.map((row) => Number(row.event_id))).toEqual(
      numbers.filter((n) => n % 50 === 0 || newestSettled.includes(n)),
    );
  });

  it("refuses a database whose schema is newer than this release", async () => {
    const newer = pool(await postgres.database("newer"));
    await expectRight(migrate(newer));
    await newer.query("insert into schema_migrations (version, name) values (999, 'from the future')");
    const error = await expectLeft(migrate(newer));
    expect(error).toEqual({
      _tag: "StorageFailure",
      reason: expect.stringMatching(/version 999, newer than this release knows/),
    });
  });
});

describe("two instances writing one connection", () => {
  it("lose none of many concurrent updates of different fields", async () => {
    const [a, b] = [
      createPostgresConnectionRepository({ pool: pool(), keyring }),
      createPostgresConnectionRepository({ pool: pool(), keyring }),
    ];
    await expectRight(
      a.insert(aConnection({ alias: "shared", orchestratorUrl: "https://start.example.net", apiKey: "start-key" })),
    );
    const rounds = Array.from({ length: 100 }, (_, i) => i);
    await Promise.all([
      (async () => {
        for (const i of rounds)
          await expectRight(a.update(alias("shared"), { orchestratorUrl: url(`https://a-${i}.example.net`) }));
      })(),
      (async () => {
        for (const i of rounds)
          await expectRight(b.update(alias("SHARED"), { apiKey: ApiKey.unsafeFrom(`b-key-${i}`) }));
      })(),
    ]);
    for (const reader of [a, b]) {
      const stored = await expectRight(reader.get(alias("shared")));
      expect(stored.orchestratorUrl).toBe("https://a-99.example.net");
      expect(stored.apiKey.reveal()).toBe("b-key-99");
    }
  });

  it("let exactly one of two instances' concurrent inserts of one alias win", async () => {
    const [a, b] = [
      createPostgresConnectionRepository({ pool: pool(), keyring }),
      createPostgresConnectionRepository({ pool: pool(), keyring }),
    ];
    for (const i of Array.from({ length: 20 }, (_, n) => n)) {
      const results = await Promise.all([
        a.insert(aConnection({ alias: `dup-${i}` }))(),
        b.insert(aConnection({ alias: `DUP-${i}` }))(),
      ]);
      expect(results.filter(E.isRight)).toHaveLength(1);
      expect(results.filter(E.isLeft).map((result) => result.left._tag)).toEqual(["AlreadyExists"]);
    }
  });
});

describe("the webhook delivery history of two instances", () => {
  it("stays bounded while both settle one webhook's deliveries at once: none fails, no pending one goes, the next settlement leaves exactly the history", async () => {
    const databaseUrl = await postgres.database("webhook_history");
    const open = async () => {
      const storage = await expectRight(openPostgresStorage({ databaseUrl, keyring }));
      closers.push(() => storage.close());
      return storage;
    };
    const [a, b] = [await open(), await open()];
    const webhook = aWebhook();
    await expectRight(a.webhooks.create(webhook, { secret: "whsec_c2VjcmV0", credentials: null }));
    const concurrent = 40;
    for (let change = 0; change < WEBHOOK_HISTORY + concurrent + 2; change += 1)
      await expectRight(a.audit.record(anAuditEntry()));
    const claimed = (
      await expectRight(a.webhooks.claim("relay", new Date(), new Date(Date.now() + 60_000), 1_000))
    ).map((one) => one.delivery.id);
    const settle = (storage: typeof a, id: string) =>
      expectRight(
        storage.webhooks.settle(
          id,
          "relay",
          { at: new Date(), status: 204, error: null, latencyMs: 1 },
          { status: "delivered" },
        ),
      );
    for (const id of claimed.slice(0, WEBHOOK_HISTORY)) await settle(a, id);
    await Promise.all(claimed.slice(WEBHOOK_HISTORY, -2).map((id, index) => settle(index % 2 === 0 ? a : b, id)));
    const counts = async () =>
      Object.fromEntries(
        (
          await pool(databaseUrl).query<{ status: string; count: number }>(
            "select status, count(*)::int as count from sdwan_webhook_deliveries group by status",
          )
        ).rows.map((row) => [row.status, row.count]),
      );
    // Settlements at once each count their own delivery, not the others': a few more may stay, for a while.
    const afterwards = await counts();
    expect(afterwards["pending"]).toBe(2);
    expect(afterwards["delivered"]).toBeGreaterThanOrEqual(WEBHOOK_HISTORY);
    expect(afterwards["delivered"]).toBeLessThan(WEBHOOK_HISTORY + concurrent);
    await settle(b, claimed.at(-2)!);
    expect(await counts()).toEqual({ pending: 1, delivered: WEBHOOK_HISTORY });
    expect((await expectRight(a.webhooks.deliveries(webhook.id, 1_000))).map((one) => one.id)).toEqual(
      claimed.slice(-(WEBHOOK_HISTORY + 1)).reverse(),
    );
  });
});

describe("connection changes across instances", () => {
  it("reconnect a lost LISTEN connection, tell its subscribers EVERY_CONNECTION, and keep delivering", async () => {
    const errors: string[] = [];
    const b = await changesOver(pool(), { reconnectDelayMs: 50, onError: (message) => errors.push(message) });
    const a = await changesOver(pool());
    const seen: ConnectionChangeNotice[] = [];
    b.subscribe((changed) => seen.push(changed));
    await pool().query(
      "select pg_terminate_backend(pid) from pg_stat_activity where query like 'listen %' and pid <> pg_backend_pid()",
    );
    await vi.waitFor(() =>
      expect(errors.some((message) => message.startsWith("lost the LISTEN connection"))).toBe(true),
    );
    await vi.waitFor(() => expect(b.listening()).toBe(true), { timeout: 5_000 });
    expect(seen).toEqual([EVERY_CONNECTION]);
    await vi.waitFor(
      async () => {
        await a.publish(alias("again"));
        expect(seen).toContain("again");
      },
      { timeout: 5_000, interval: 200 },
    );
  });

  it("never fail the publisher's write when NOTIFY cannot be sent", async () => {
    const errors: string[] = [];
    const doomed = pool();
    const changes = await changesOver(doomed, { onError: (message) => errors.push(message) });
    const seen: ConnectionChangeNotice[] = [];
    changes.subscribe((changed) => seen.push(changed));
    await doomed.end();
    await expect(changes.publish(alias("lab"))).resolves.toBeUndefined();
    expect(seen).toEqual(["lab"]);
    expect(errors).toEqual([expect.stringMatching(/^cannot announce a connection change/)]);
  });

  it("can listen on a client checked out of the pool, and give it back on close", async () => {
    const shared = aPool(postgres.connectionString, 3);
    pools.push(shared);
    const b = await expectRight(createPostgresConnectionChanges({ pool: shared, channel: "pooled_changes" }));
    const a = await expectRight(createPostgresConnectionChanges({ pool: pool(), channel: "pooled_changes" }));
    closers.push(() => a.close());
    const seen: ConnectionChangeNotice[] = [];
    b.subscribe((changed) => seen.push(changed));
    await a.publish(alias("pooled"));
    await vi.waitFor(() => expect(seen).toEqual(["pooled"]));
    expect(shared.totalCount - shared.idleCount).toBe(1);
    await b.close();
    expect(shared.totalCount - shared.idleCount).toBe(0);
    expect(b.listening()).toBe(false);
  });

  it("refuse a channel that is not a plain identifier", () => {
    expect(() => createPostgresConnectionChanges({ pool: pool(), channel: 'x"; drop table connections; --' })).toThrow(
      RangeError,
    );
  });
});

describe("the audit trail of two service instances", () => {
  it("has every acknowledged write's entry visible from the other instance as soon as the write answers: many writes, 0 missing", async () => {
    const anInstance = () => {
      const over = pool();
      return {
        service: createCore({
          storage: {
            ...createInMemoryStorage(),
            repository: createPostgresConnectionRepository({ pool: over, keyring }),
            audit: createPostgresAuditLog({ pool: over }),
          },
          orchestrator: createInMemoryOrchestrator([]),
        }),
        audit: createPostgresAuditLog({ pool: over }),
      };
    };
    const [a, b] = [anInstance(), anInstance()];
    const missing: string[] = [];
    let acknowledged = 0;
    // Concurrent writers on A (adds, updates, deletes); after each answer, B reads its entry at once.
    await Promise.all(
      Array.from({ length: 8 }, async (_, writer) => {
        for (let i = 0; i < 25; i += 1) {
          const name = `audited-${writer}-${i}`;
          const requestId = `req-${name}`;
          const writes: (() => TE.TaskEither<DomainError, unknown>)[] = [
            () =>
              a.service.connections.add(
                { alias: name, orchestratorUrl: "https://vco.example.net", apiKey: `key-${name}` },
                { force: true, by: { name: "a", requestId: `${requestId}-add` } },
              ),
            () =>
              a.service.connections.update(
                name,
                { orchestratorUrl: "https://moved.example.net" },
                { force: true, by: { name: "a", requestId: `${requestId}-update` } },
              ),
            () => a.service.connections.delete(name, { by: { name: "a", requestId: `${requestId}-delete` } }),
          ];
          for (const [step, write] of writes.entries()) {
            await expectRight(write());
            acknowledged += 1;
            const entries = await expectRight(b.audit.list({ limit: 10, alias: alias(name) }));
            const wanted = `${requestId}-${["add", "update", "delete"][step]}`;
            if (!entries.some((entry) => entry.requestId === wanted && entry.outcome === "succeeded"))
              missing.push(wanted);
          }
        }
      }),
    );
    expect(acknowledged).toBe(600);
    expect(missing).toEqual([]);
  });
});

describe("customers caches of two service instances", () => {
  const PARTNER = 7;
  const before = [aCustomer({ id: 1, name: "BEFORE" })];
  const after = [aCustomer({ id: 2, name: "AFTER" })];

  const anInstance = async () => {
    const over = pool();
    const changes: PostgresConnectionChanges = await changesOver(over);
    const orchestrator = createInMemoryOrchestrator([
      { apiKey: "old-partner-key", identity: { kind: "partner", partnerId: PARTNER }, customers: before },
      { apiKey: "new-partner-key", identity: { kind: "partner", partnerId: PARTNER }, customers: after },
    ]);
    const service = createCore({
      storage: {
        ...createInMemoryStorage(),
        repository: createPostgresConnectionRepository({ pool: over, keyring }),
        changes,
      },
      orchestrator,
    });
    closers.push(async () => service.dispose());
    return { service, orchestrator, changes };
  };

  const customerNames = async (service: Awaited<ReturnType<typeof anInstance>>["service"], name: string) =>
    (await expectRight(service.connections.customers(name))).items.map((customer) => customer.name);

  it("drops B's cache when A updates or deletes the connection", async () => {
    const [a, b] = [await anInstance(), await anInstance()];
    const heardByB: ConnectionChangeNotice[] = [];
    b.changes.subscribe((changed) => heardByB.push(changed));
    await expectRight(
      a.service.connections.add({
        alias: "Partner",
        orchestratorUrl: "https://vco.example.net",
        apiKey: "old-partner-key",
      }),
    );

    expect(await customerNames(b.service, "partner")).toEqual(["BEFORE"]);
    expect(await customerNames(b.service, "PARTNER")).toEqual(["BEFORE"]);
    expect(b.orchestrator.calls.listPartnerCustomers).toBe(1); // the second answer came from B's cache

    await expectRight(a.service.connections.update("partner", { apiKey: "new-partner-key" }));
    await vi.waitFor(() => expect(heardByB.map((heard) => String(heard).toLowerCase())).toEqual(["partner"]));
    expect(await customerNames(b.service, "partner")).toEqual(["AFTER"]);
    expect(b.orchestrator.calls.listPartnerCustomers).toBe(2);

    await expectRight(a.service.connections.delete("PARTNER"));
    await vi.waitFor(() =>
      expect(heardByB.map((heard) => String(heard).toLowerCase())).toEqual(["partner", "partner"]),
    );
    await expectRight(
      a.service.connections.add({
        alias: "partner",
        orchestratorUrl: "https://vco.example.net",
        apiKey: "old-partner-key",
      }),
    );
    expect(await customerNames(b.service, "partner")).toEqual(["BEFORE"]);
    expect(b.orchestrator.calls.listPartnerCustomers).toBe(3);
  });
});

// Issue 36, 8: grants (and events) on PostgreSQL were never tried across a database restart. Here the database
// restarts for real while instance B is also cut off (through the outage proxy) for longer: what A changes while B
// is away, or right after the restart, reaches B within a second of B's database coming back, and B listens again.
describe("grants and events across a database restart", () => {
  it("tell B what changed while its database was away, within a second of its return, and keep hearing every channel", async () => {
    const proxy = await startOutageProxy(postgres.connectionString);
    closers.push(() => proxy.close());
    const errors: string[] = [];
    const onError = (message: string) => errors.push(message);
    const viaProxy = { connectionString: proxy.connectionString };
    const bPool = pool(proxy.connectionString);
    const b = await expectRight(createPostgresGrantStore({ pool: bPool, listener: viaProxy, onError }));
    const a = await expectRight(
      createPostgresGrantStore({ pool: pool(), listener: { connectionString: postgres.connectionString } }),
    );
    closers.push(
      () => b.close(),
      () => a.close(),
    );
    const bAudit = createPostgresAuditLog({ pool: bPool, listener: viaProxy, onError });
    const aAudit = createPostgresAuditLog({ pool: pool() });
    closers.push(() => bAudit.close());
    // The trail already holds entries: none of them may reach B's subscriber (a restoration reads from what B heard).
    await expectRight(aAudit.record(anAuditEntry()));
    let grantsTold = 0;
    b.subscribe(() => (grantsTold += 1));
    const heard: string[] = [];
    await expectRight(bAudit.subscribe((entry) => heard.push(entry.id)));
    const grant = (): Grant => ({
      id: randomUUID(),
      subject: "group:restarted" as Subject,
      pattern: `lab-${randomUUID()}` as AliasPattern,
      verb: "read",
    });

    proxy.cut();
    await vi.waitFor(() =>
      expect(errors.filter((line) => line.startsWith("lost the LISTEN connection"))).toHaveLength(2),
    );
    const lost = Date.now();
    await postgres.restart();
    // Right after the restart, while B is still away: A's grant and an event.
    const whileAway = grant();
    await vi.waitFor(async () => expect(await a.add(whileAway)()).toEqual(E.right(true)), {
      timeout: 30_000,
      interval: 200,
    });
    const missed = anAuditEntry();
    await expectRight(aAudit.record(missed));
    // Away long enough that a listener backing off by doubling (0.5, 1, 2, 4, 8 s…) would try next only 31.5 s after
    // the loss: that one would be heard seconds late, this one within a second and a connection.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, lost + 17_000 - Date.now())));
    const toldBefore = grantsTold;
    proxy.restore();
    const back = Date.now();
    await vi.waitFor(() => expect(grantsTold).toBeGreaterThan(toldBefore), { timeout: 30_000, interval: 50 });
    // 1 s and a connection, with room for a machine at load 10 on 2 cores (the doubling backoff misses by over 10 s).
    expect(Date.now() - back).toBeLessThan(5_000);
    await vi.waitFor(() => expect(heard).toEqual([missed.id]));
    expect(await expectRight(b.list())).toContainEqual(whileAway);

    // Listening again on both channels: A's next grant and event arrive by NOTIFY.
    const toldAfter = grantsTold;
    await expectRight(a.add(grant()));
    await vi.waitFor(() => expect(grantsTold).toBeGreaterThan(toldAfter));
    const next = anAuditEntry();
    await expectRight(aAudit.record(next));
    await vi.waitFor(() => expect(heard).toEqual([missed.id, next.id]));
  }, 120_000);
});
