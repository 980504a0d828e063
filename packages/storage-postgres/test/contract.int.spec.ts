import { afterAll, afterEach, beforeAll, expect, vi } from "vitest";
import type pg from "pg";
import type { ConnectionChanges, FailureCounter } from "@sdwan-connections/core";
import {
  describeAuditLogContract,
  describeConnectionChangesContract,
  describeConnectionRepositoryContract,
  describeFailureCounterContract,
  describeHealthLedgerContract,
  describeRenewalLedgerContract,
  describeServiceTokenStoreContract,
  describeGrantStoreContract,
  describeStorageContract,
  describeWebhookStoreContract,
} from "@sdwan-connections/core/contract";
import { expectRight } from "@sdwan-connections/core/testing";
import {
  createPostgresAuditLog,
  createPostgresConnectionChanges,
  createPostgresConnectionRepository,
  createPostgresFailureCounter,
  createPostgresHealthLedger,
  createPostgresRenewalLedger,
  createPostgresServiceTokenStore,
  createPostgresGrantStore,
  GRANTS_TABLE,
  FAILURES_TABLE,
  SERVICE_TOKENS_TABLE,
  migrate,
  openPostgresStorage,
  type PostgresConnectionChanges,
} from "../src/index.js";
import { startOutageProxy, type OutageProxy } from "../testing/index.js";
import { aKeyring, aPool, startPostgres, type StartedPostgres } from "./postgres-container.js";

let postgres: StartedPostgres;
let admin: pg.Pool;
const pools: pg.Pool[] = [];
// A pool made for one test is ended after it: the suites make hundreds, which would otherwise hold more
// connections than the server takes (the failure counter's insurance then answers from memory, and listeners fail).
const testPools: pg.Pool[] = [];
// Audit logs made for one test: closed after it (each may hold a LISTEN connection).
const testLogs: { close(): Promise<void> }[] = [];
const keyring = aKeyring();

afterEach(async () => {
  await Promise.allSettled(testLogs.splice(0).map((log) => log.close()));
  await Promise.allSettled(testPools.splice(0).map((pool) => pool.end()));
});

beforeAll(async () => {
  postgres = await startPostgres({ label: "storage-postgres" });
  admin = aPool(postgres.connectionString, 2);
  await expectRight(migrate(admin));
});

afterAll(async () => {
  try {
    await Promise.allSettled([admin, ...pools].map((pool) => pool?.end()));
  } finally {
    await postgres?.stop(); // even when closing failed: never leave a container behind
  }
});

describeConnectionRepositoryContract("PostgresConnectionRepository", {
  // Each repository gets its own pool, as a separate instance of the service would (a small one: the suite makes many).
  make: async () => {
    const pool = aPool(postgres.connectionString, 3);
    testPools.push(pool);
    return createPostgresConnectionRepository({ pool, keyring });
  },
  reset: async () => {
    await admin.query("truncate connections, audit_entries");
  },
  peek: async () => JSON.stringify((await admin.query("select * from connections")).rows),
  audit: async () => createPostgresAuditLog({ pool: admin }),
});

describeAuditLogContract("PostgresAuditLog", {
  make: async (retention) => {
    const pool = aPool(postgres.connectionString);
    testPools.push(pool);
    const log = createPostgresAuditLog({ pool, retention, listener: { connectionString: postgres.connectionString } });
    testLogs.push(log);
    return log;
  },
  reset: async () => {
    await admin.query("truncate audit_entries");
  },
});

describeHealthLedgerContract("PostgresHealthLedger", {
  make: async () => {
    const pool = aPool(postgres.connectionString);
    testPools.push(pool);
    return createPostgresHealthLedger({ pool });
  },
  reset: async () => {
    await admin.query("truncate connection_health");
  },
});

describeRenewalLedgerContract("PostgresRenewalLedger", {
  make: async () => {
    const pool = aPool(postgres.connectionString);
    testPools.push(pool);
    return createPostgresRenewalLedger({ pool, keyring });
  },
  // Every row as PostgreSQL keeps it, as text.
  persisted: async () => JSON.stringify((await admin.query("select * from sdwan_key_renewals")).rows),
  reset: async () => {
    await admin.query("truncate sdwan_key_renewals");
  },
});

describeGrantStoreContract("PostgresGrantStore", {
  // Each store over its own pool and LISTEN connection, as another instance's would be.
  make: async () => {
    const pool = aPool(postgres.connectionString, 2);
    testPools.push(pool);
    const grants = await expectRight(
      createPostgresGrantStore({ pool, listener: { connectionString: postgres.connectionString } }),
    );
    testLogs.push(grants);
    return grants;
  },
  reset: async () => {
    await admin.query(`truncate ${GRANTS_TABLE}`);
  },
});

describeServiceTokenStoreContract("PostgresServiceTokenStore", {
  // Each store over its own pool, as another instance's would be.
  make: async () => {
    const pool = aPool(postgres.connectionString);
    testPools.push(pool);
    return createPostgresServiceTokenStore({ pool });
  },
  reset: async () => {
    await admin.query(`truncate ${SERVICE_TOKENS_TABLE}`);
  },
  peek: async () => JSON.stringify((await admin.query(`select * from ${SERVICE_TOKENS_TABLE}`)).rows),
});

// Each "instance" publishes through its own pool and listens through its own proxy, which `interrupt` cuts.
const instances = new Map<
  ConnectionChanges,
  { readonly changes: PostgresConnectionChanges; readonly proxy: OutageProxy }
>();
describeConnectionChangesContract("PostgresConnectionChanges", {
  make: async () => {
    const pool = aPool(postgres.connectionString, 2);
    pools.push(pool);
    const proxy = await startOutageProxy(postgres.connectionString);
    const changes = await expectRight(
      createPostgresConnectionChanges({
        pool,
        listener: { connectionString: proxy.connectionString },
        reconnectDelayMs: 50,
      }),
    );
    instances.set(changes, { changes, proxy });
    return changes;
  },
  interrupt: async (of, meanwhile) => {
    const instance = instances.get(of);
    if (instance === undefined) throw new Error("not made by this suite");
    instance.proxy.cut();
    await vi.waitFor(() => expect(instance.changes.listening()).toBe(false));
    await meanwhile();
    instance.proxy.restore();
    await vi.waitFor(() => expect(instance.changes.listening()).toBe(true), { timeout: 5_000 });
  },
  close: async () => {
    for (const { changes, proxy } of instances.values()) {
      await changes.close();
      await proxy.close();
    }
  },
});

// Each counter reaches the database through its own proxy, which `interrupt` cuts.
const counterProxies = new Map<FailureCounter, OutageProxy>();
describeFailureCounterContract("PostgresFailureCounter", {
  make: async (windowMs) => {
    const proxy = await startOutageProxy(postgres.connectionString);
    const pool = aPool(proxy.connectionString);
    testPools.push(pool);
    const counter = createPostgresFailureCounter({ pool, windowMs });
    counterProxies.set(counter, proxy);
    return counter;
  },
  interrupt: async (counter, meanwhile) => {
    const proxy = counterProxies.get(counter);
    if (proxy === undefined) throw new Error("not made by this suite");
    proxy.cut();
    await meanwhile();
    proxy.restore();
  },
  close: async () => {
    for (const proxy of counterProxies.values()) await proxy.close();
  },
  reset: async () => {
    await admin.query(`truncate ${FAILURES_TABLE}`);
  },
});

describeStorageContract("openPostgresStorage", {
  // Each opening is a new pool and listener on the same database, as a restarted instance's; the contract closes it.
  open: () => expectRight(openPostgresStorage({ databaseUrl: postgres.connectionString, keyring })),
  reset: async () => {
    await admin.query(
      `truncate connections, audit_entries, connection_health, ${FAILURES_TABLE}, ${SERVICE_TOKENS_TABLE}, ${GRANTS_TABLE}, sdwan_webhooks, sdwan_webhook_deliveries`,
    );
  },
});

describeWebhookStoreContract("PostgresWebhookStore", {
  open: () => expectRight(openPostgresStorage({ databaseUrl: postgres.connectionString, keyring })),
  reset: async () => {
    await admin.query("truncate connections, audit_entries, sdwan_webhooks, sdwan_webhook_deliveries");
  },
  peek: async () =>
    JSON.stringify(
      await Promise.all(
        ["sdwan_webhooks", "sdwan_webhook_deliveries"].map(
          async (table) => (await admin.query(`select * from ${table}`)).rows,
        ),
      ),
    ),
});
