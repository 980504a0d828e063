import { afterAll, beforeAll } from "vitest";
import type pg from "pg";
import { describeAuditLogContract, describeConnectionRepositoryContract, describeHealthLedgerContract } from "@sdwan-connections/core/contract";
import { expectRight } from "@sdwan-connections/core/testing";
import { createPostgresAuditLog, createPostgresConnectionRepository, createPostgresHealthLedger, migrate } from "../src/index.js";
import { aKeyring, aPool, startPostgres, type StartedPostgres } from "./postgres-container.js";

let postgres: StartedPostgres;
let admin: pg.Pool;
const pools: pg.Pool[] = [];
const keyring = aKeyring();

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
    pools.push(pool);
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
    pools.push(pool);
    return createPostgresAuditLog({ pool, retention });
  },
  reset: async () => {
    await admin.query("truncate audit_entries");
  },
});

describeHealthLedgerContract("PostgresHealthLedger", {
  make: async () => {
    const pool = aPool(postgres.connectionString);
    pools.push(pool);
    return createPostgresHealthLedger({ pool });
  },
  reset: async () => {
    await admin.query("truncate connection_health");
  },
});
