import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { median, writeBenchmarkSection } from "@sdwan-connections/bench-kit";
import { orchestratorModule } from "@sdwan-connections/composition/testing";
import { aCustomer, createInMemoryOrchestrator } from "@sdwan-connections/core/testing";
import { startOutageProxy, startPostgres, type OutageProxy, type StartedPostgres } from "@sdwan-connections/storage-postgres/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RunningService } from "../src/service.js";
import { ADMIN, BASE, captureLogs, client, makeDataDir, startService, testConfig } from "./harness.js";

const REPORT = new URL("../../../docs/reliability.md", import.meta.url).pathname;
const TRIALS = 5;

// One partner whose customers depend on its key: changing the key changes the list.
const KEYS = { before: "before-key-1a2b3c", after: "after-key-4d5e6f" } as const;
const orchestrator = createInMemoryOrchestrator([
  { apiKey: KEYS.before, identity: { kind: "partner", partnerId: 7 }, customers: [aCustomer({ id: 1, name: "BEFORE" })] },
  { apiKey: KEYS.after, identity: { kind: "partner", partnerId: 7 }, customers: [aCustomer({ id: 2, name: "AFTER" })] },
]);

let postgres: StartedPostgres;
let proxy: OutageProxy;
let admin: pg.Client;
const dirs: string[] = [];
const masterKey = randomBytes(32).toString("base64");

beforeAll(async () => {
  postgres = await startPostgres({ label: "http-express" });
  proxy = await startOutageProxy(postgres.connectionString);
  admin = new pg.Client({ connectionString: postgres.connectionString });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await proxy?.close();
  await postgres?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** An instance of the service on PostgreSQL at `databaseUrl`, customers cached for an hour: only a change notice or a reset refreshes them. */
const instance = async (databaseUrl: string): Promise<RunningService> => {
  const dir = await makeDataDir();
  dirs.push(dir);
  return startService(
    testConfig({
      SDWAN_DATA_DIR: dir,
      SDWAN_STORAGE: "postgres",
      SDWAN_DATABASE_URL: databaseUrl,
      SDWAN_MASTER_KEY: masterKey,
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_CUSTOMERS_CACHE_TTL_MS: "3600000",
    }),
    { orchestrator: orchestratorModule(orchestrator), logDestination: captureLogs().stream },
  );
};

/** LISTEN connections open on the database right now (one per instance that listens). */
const listeners = async (): Promise<number> =>
  Number((await admin.query<{ count: string }>("select count(*) from pg_stat_activity where query like 'listen %' and state = 'idle'")).rows[0]?.count);

describe("two instances on PostgreSQL, one losing the database for a while", () => {
  it("the other's change made during the outage reaches B's answers within 1 s of B listening again", async () => {
    const a = await instance(postgres.connectionString);
    const b = await instance(proxy.connectionString); // B reaches the database only through the proxy
    const [callA, callB] = [client(a.url), client(b.url)];
    const names = async (alias: string) => (await callB("GET", `${BASE}/partner/${alias}/customers`)).json<{ name: string }[]>().map(({ name }) => name);
    const outages: number[] = [];
    const convergences: number[] = [];
    try {
      await vi.waitFor(async () => expect(await listeners()).toBe(2));
      for (let trial = 1; trial <= TRIALS; trial += 1) {
        const alias = `partner-${trial}`;
        expect((await callA("POST", `${BASE}/connections`, { body: { alias, orchestratorUrl: "https://vco.example.net/", apiKey: KEYS.before } })).status).toBe(200);
        expect(await names(alias)).toEqual(["BEFORE"]); // B's cache is warm
        const cut = performance.now();
        proxy.cut();
        await vi.waitFor(async () => expect(await listeners()).toBe(1));
        // During B's outage A changes the key: B's LISTEN connection is gone, so its notice is lost.
        expect((await callA("PUT", `${BASE}/connections/${alias}`, { body: { apiKey: KEYS.after } })).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, (trial - 1) * 500)); // outages of different lengths
        proxy.restore();
        await vi.waitFor(async () => expect(await listeners()).toBe(2), { timeout: 40_000, interval: 10 });
        const back = performance.now();
        await vi.waitFor(async () => expect(await names(alias)).toEqual(["AFTER"]), { timeout: 1_000, interval: 20 });
        convergences.push(performance.now() - back);
        outages.push(back - cut);
      }
    } finally {
      await a.close();
      await b.close();
    }
    const ms = (values: readonly number[]) => values.map((value) => `${Math.round(value)} ms`).join(", ");
    await writeBenchmarkSection(
      "reliability:outage",
      `Last run: ${TRIALS} trials, each an outage of B's database connections of ${ms(outages)} (until its LISTEN connection was back). ` +
        `B answered A's change made during the outage ${ms(convergences)} after listening again (median ${Math.round(median(convergences))} ms, at most ${Math.round(Math.max(...convergences))} ms; bound: 1 s).`,
      REPORT,
    );
  }, 120_000);
});
