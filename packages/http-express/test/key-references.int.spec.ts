import { randomBytes } from "node:crypto";
import { link, mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  loadSampleDataset,
  startOrchestratorSimulator,
  type OrchestratorSimulator,
} from "@sdwan-connections/orchestrator-simulator";
import { startPostgres, type StartedPostgres } from "@sdwan-connections/storage-postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../src/service.js";
import { ADMIN, BASE, captureLogs, client, makeUsersDir, startService, testConfig, VIEWER } from "./harness.js";

// SPEC §12 "Keys kept elsewhere", with real parts: the simulator, real files and links, both stores.
const CONNECTIONS = `${BASE}/connections`;
const PARTNER_KEY = "sample-partner-key-1";
const CUSTOMER_KEY = "sample-customer-key-1-1";
const UNKNOWN_KEY = "a-key-the-orchestrator-never-gave";

let simulator: OrchestratorSimulator;
let root: string;
let keyDir: string;
let stamp = 0;
const logs = captureLogs();

/** Kubernetes' layout of a mounted Secret: NAME -> ..data/NAME, ..data -> a timestamped directory. */
const mountSecret = async (name: string, key: string) => {
  stamp += 1;
  const directory = `..2026_11_27_22_00_${String(stamp).padStart(2, "0")}.${stamp}`;
  await mkdir(join(keyDir, directory));
  await writeFile(join(keyDir, directory, name), `${key}\n`);
  await symlink(directory, join(keyDir, "..data"));
  await symlink(join("..data", name), join(keyDir, name));
};
/** Kubernetes' update of the Secret: a new timestamped directory, then `..data` swapped to it by one rename. */
const swapSecret = async (name: string, key: string) => {
  stamp += 1;
  const directory = `..2026_11_27_22_00_${String(stamp).padStart(2, "0")}.${stamp}`;
  await mkdir(join(keyDir, directory));
  await writeFile(join(keyDir, directory, name), `${key}\n`);
  await symlink(directory, join(keyDir, "..data_tmp"));
  await rename(join(keyDir, "..data_tmp"), join(keyDir, "..data"));
};

/** Waits, by counting, until `done` holds; fails past the 60 s SPEC §12 gives. */
const within60s = async (done: () => boolean | Promise<boolean>): Promise<void> => {
  const deadline = Date.now() + 60_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("not seen within 60 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
const keyCalls = (key: string) => Object.values(simulator.callsFor(key)).reduce((sum, count) => sum + count, 0);

beforeAll(async () => {
  simulator = await startOrchestratorSimulator({ data: await loadSampleDataset(), host: "127.0.0.1", port: 0 });
  root = await mkdtemp(join(tmpdir(), "sdwan-keyref-"));
  keyDir = join(root, "keys");
  await mkdir(keyDir);
});
afterAll(async () => {
  await simulator.stop();
  await rm(root, { recursive: true, force: true });
});

const start = async (dataDir: string, env: Record<string, string> = {}): Promise<RunningService> => {
  const users = await makeUsersDir();
  return startService(
    testConfig({
      SDWAN_DATA_DIR: dataDir,
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_HTPASSWD_FILE: users.htpasswd,
      SDWAN_VIEWERS: VIEWER.name,
      SDWAN_ORCHESTRATOR_ALLOWED_HOSTS: "127.0.0.1",
      SDWAN_APIKEY_DIR: keyDir,
      SDWAN_APIKEY_REREAD_S: "1",
      SDWAN_APIKEY_LAB: CUSTOMER_KEY,
      ...env,
    }),
    { logDestination: logs.stream },
  );
};

describe("apiKeyRef on the embedded store, against the simulator", () => {
  let service: RunningService;
  let dataDir: string;
  let call: ReturnType<typeof client>;
  beforeAll(async () => {
    dataDir = join(root, "data");
    service = await start(dataDir);
    call = client(service.url);
    await mountSecret("lab", PARTNER_KEY);
  });
  afterAll(async () => {
    await service.close();
  });

  it("reads the key from the mounted Secret, keeps only the reference, and shows where the key lives", async () => {
    const added = await call("POST", CONNECTIONS, {
      body: { alias: "lab", orchestratorUrl: simulator.url, apiKeyRef: "file:lab" },
    });
    expect(added.status).toBe(200);
    const stored = (await call("GET", `${CONNECTIONS}/lab?stored=true`)).json<Record<string, unknown>>();
    expect(stored["apiKeyRef"]).toBe("file:lab");
    expect((await call("GET", `${CONNECTIONS}/lab?verbose=true`)).json()).toMatchObject({
      valid: true,
      type: "partner",
      apiKeyRef: "file:lab",
    });
    const file = await readFile(join(dataDir, "connections.json"), "utf8");
    const line = file.split("\n").find((text) => text.includes('"alias":"lab"')) ?? "";
    expect(line).toContain('"apiKeyRef":"file:lab"');
    expect(line).not.toContain("sealedApiKey");
  });

  it(
    "sees Kubernetes' ..data swap within 60 s: the simulator gets the new key, unasked, and a changed outcome is a health event",
    { timeout: 150_000 },
    async () => {
      simulator.resetCalls();
      await swapSecret("lab", CUSTOMER_KEY);
      await within60s(() => keyCalls(CUSTOMER_KEY) > 0);
      expect((await call("GET", `${CONNECTIONS}/lab?verbose=true`)).json()).toMatchObject({
        valid: true,
        type: "customer",
      });

      await swapSecret("lab", UNKNOWN_KEY);
      await within60s(async () => {
        const health = (await call("GET", `${BASE}/health/connections`)).json<{
          connections: { alias: string; state: string }[];
        }>();
        return health.connections.some(({ alias, state }) => alias === "lab" && state === "invalid");
      });
      expect(keyCalls(UNKNOWN_KEY)).toBeGreaterThan(0);
      // The ledger answers the new state as soon as it is written; the change's audit entry follows it.
      await within60s(async () => {
        const audit = (await call("GET", `${BASE}/audit?alias=lab`)).json<{ entries: { detail: string | null }[] }>();
        return audit.entries.some(({ detail }) => detail?.includes("→ invalid") === true);
      });
      await swapSecret("lab", PARTNER_KEY);
    },
  );

  it("reads env:SDWAN_APIKEY_… from the service's environment", async () => {
    const added = await call("POST", CONNECTIONS, {
      body: { alias: "from-env", orchestratorUrl: simulator.url, apiKeyRef: "env:SDWAN_APIKEY_LAB" },
    });
    expect(added.status).toBe(200);
    expect((await call("GET", `${CONNECTIONS}/from-env?verbose=true`)).json()).toMatchObject({
      valid: true,
      type: "customer",
      apiKeyRef: "env:SDWAN_APIKEY_LAB",
    });
  });

  // Regression: `keyRenewal: "auto"` with a reference answered "successfully added/updated", stored `auto`, and
  // showed `off`: a setting asked for was dropped without a word (SPEC §12: renewal is off for a reference).
  it("refuses renewal asked of a key kept elsewhere, naming keyRenewal, and changes nothing", async () => {
    const body = { alias: "renew-ref", orchestratorUrl: simulator.url, apiKeyRef: "env:SDWAN_APIKEY_LAB" };
    const errorsOf = (answer: { json: <T>() => T }) => answer.json<{ errors: { field: string }[] }>().errors;
    const asked = await call("POST", CONNECTIONS, { body: { ...body, keyRenewal: "auto" } });
    expect([asked.status, errorsOf(asked).map((error) => error.field)]).toEqual([400, ["keyRenewal"]]);
    expect((await call("GET", `${CONNECTIONS}/renew-ref?stored=true`)).status).toBe(404);
    expect((await call("POST", CONNECTIONS, { body })).status).toBe(200);
    const version = (await call("GET", `${CONNECTIONS}/renew-ref?stored=true`)).json<{ version: number }>().version;
    for (const change of [{ keyRenewal: "auto" }, { keyRenewal: "auto", apiKeyRef: "env:SDWAN_APIKEY_LAB" }]) {
      const refused = await call("PUT", `${CONNECTIONS}/renew-ref`, { body: change });
      expect([refused.status, errorsOf(refused).map((error) => error.field)]).toEqual([400, ["keyRenewal"]]);
    }
    expect((await call("GET", `${CONNECTIONS}/renew-ref?stored=true`)).json()).toMatchObject({
      version,
      keyRenewal: "off",
    });
    // A stored key given with it makes renewal possible again.
    expect(
      (await call("PUT", `${CONNECTIONS}/renew-ref`, { body: { keyRenewal: "auto", apiKey: CUSTOMER_KEY } })).status,
    ).toBe(200);
    expect((await call("DELETE", `${CONNECTIONS}/renew-ref`)).status).toBe(204);
  });

  it("refuses escapes (a link out, '..', the data directory, the master key, its base64 copy) and apiKey with apiKeyRef", async () => {
    await writeFile(join(root, "outside"), PARTNER_KEY);
    await symlink(join(root, "outside"), join(keyDir, "out"));
    await link(join(dataDir, "master.key"), join(keyDir, "master-link"));
    await writeFile(join(keyDir, "master-copy"), await readFile(join(dataDir, "master.key")));
    await symlink(join(dataDir, "connections.json"), join(keyDir, "store"));
    const master = Buffer.from((await readFile(join(dataDir, "master.key"), "utf8")).trim(), "base64");
    await writeFile(join(keyDir, "master-hex"), master.toString("hex"));
    const refused = {
      "file:out": /outside SDWAN_APIKEY_DIR/,
      "file:../outside": /inside SDWAN_APIKEY_DIR/,
      "file:master-link": /data directory|master key/,
      "file:master-copy": /master key/,
      "file:master-hex": /master key/,
      "file:store": /data directory/,
      "env:SDWAN_MASTER_KEY": /SDWAN_APIKEY_/,
    };
    for (const [apiKeyRef, reason] of Object.entries(refused)) {
      const answer = await call("POST", `${CONNECTIONS}?force=true`, {
        body: { alias: "escape", orchestratorUrl: simulator.url, apiKeyRef },
      });
      expect(answer.status, apiKeyRef).toBe(400);
      const { errors } = answer.json<{ errors: { field: string; message: string }[] }>();
      expect(errors[0]?.field).toBe("apiKeyRef");
      expect(errors[0]?.message).toMatch(reason);
    }
    const both = await call("POST", CONNECTIONS, {
      body: { alias: "both", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY, apiKeyRef: "file:lab" },
    });
    expect(both.status).toBe(400);
    expect(both.json<{ errors: { field: string }[] }>().errors.map(({ field }) => field)).toEqual([
      "apiKey",
      "apiKeyRef",
    ]);
    expect((await call("GET", CONNECTIONS)).json<{ alias: string }[]>().map(({ alias }) => alias)).not.toContain(
      "escape",
    );
  });

  it("needs the admin role to set a reference: a manage grant gets 403 saying why", async () => {
    expect(
      (
        await call("POST", `${BASE}/grants`, {
          body: { subject: `user:${VIEWER.name}`, pattern: "lab", verb: "manage" },
        })
      ).status,
    ).toBe(201);
    const asViewer = { user: VIEWER };
    const refused = await call("PUT", `${CONNECTIONS}/lab`, { ...asViewer, body: { apiKeyRef: "file:lab" } });
    expect(refused.status).toBe(403);
    expect(refused.json<{ detail: string }>().detail).toMatch(/apiKeyRef needs the admin role/);
    // The grant itself works: the same principal may change the URL.
    expect(
      (await call("PUT", `${CONNECTIONS}/lab?force=true`, { ...asViewer, body: { orchestratorUrl: simulator.url } }))
        .status,
    ).toBe(200);
  });

  it("never puts a key in a response, a log line or a file of the data directory", async () => {
    const files = await readdir(dataDir);
    for (const name of files) {
      const text = await readFile(join(dataDir, name)).catch(() => Buffer.alloc(0));
      for (const key of [PARTNER_KEY, CUSTOMER_KEY, UNKNOWN_KEY]) expect(text.includes(key), name).toBe(false);
    }
    for (const key of [PARTNER_KEY, CUSTOMER_KEY, UNKNOWN_KEY]) expect(logs.text()).not.toContain(key);
  });
});

describe("apiKeyRef on PostgreSQL: two instances both read the new file", () => {
  let postgres: StartedPostgres;
  const masterKey = randomBytes(32).toString("base64");
  const instances: RunningService[] = [];
  beforeAll(async () => {
    postgres = await startPostgres({ label: "keyref" });
    for (const name of ["a", "b"])
      instances.push(
        await start(join(root, `pg-${name}`), {
          SDWAN_STORAGE: "postgres",
          SDWAN_DATABASE_URL: postgres.connectionString,
          SDWAN_MASTER_KEY: masterKey,
        }),
      );
    await mkdir(join(keyDir, "team"), { recursive: true });
    await writeFile(join(keyDir, "team", "pg"), `${PARTNER_KEY}\n`);
  }, 120_000);
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await postgres?.stop();
  });

  it(
    "stores only the reference; after a change of the file, both instances use the new key within 60 s",
    { timeout: 90_000 },
    async () => {
      const [a, b] = instances.map((instance) => client(instance.url));
      if (a === undefined || b === undefined) throw new Error("two instances");
      expect(
        (
          await a("POST", CONNECTIONS, {
            body: { alias: "pg", orchestratorUrl: simulator.url, apiKeyRef: "file:team/pg" },
          })
        ).status,
      ).toBe(200);
      const rows = await postgres.rows("select api_key, api_key_ref from connections where alias_key = 'pg'");
      expect(rows).toEqual([{ api_key: null, api_key_ref: "file:team/pg" }]);
      expect((await b("GET", `${CONNECTIONS}/pg?verbose=true`)).json()).toMatchObject({ valid: true, type: "partner" });

      simulator.resetCalls();
      await writeFile(join(keyDir, "team", "pg.next"), `${CUSTOMER_KEY}\n`);
      await rename(join(keyDir, "team", "pg.next"), join(keyDir, "team", "pg"));
      // The watches validate the changed key, unasked; then each instance uses it when asked.
      await within60s(() => keyCalls(CUSTOMER_KEY) > 0);
      for (const instance of [a, b])
        expect((await instance("GET", `${CONNECTIONS}/pg?verbose=true`)).json()).toMatchObject({
          valid: true,
          type: "customer",
        });
      const fingerprints = await Promise.all(
        [a, b].map(async (instance) =>
          (await instance("GET", `${CONNECTIONS}/pg?stored=true`)).json<{ apiKeyFingerprint: string }>(),
        ),
      );
      expect(fingerprints[0]?.apiKeyFingerprint).toBe(fingerprints[1]?.apiKeyFingerprint);
    },
  );
});
