import { randomBytes } from "node:crypto";
import { assertContainerRuntime, startPostgres, type StartedPostgres } from "@sdwan-connections/e2e/support/containers";
import { buildServiceImage, SERVICE_IMAGE } from "@sdwan-connections/e2e/support/image";
import { MIGRATIONS } from "@sdwan-connections/storage-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBalancer, type Balancer } from "./support/balancer.js";
import { renderOverlay } from "./support/kustomize.js";
import { containerRun, serviceContainer, type ContainerRun, type Secrets } from "./support/pod.js";
import { startPodContainer, waitUntilAnswers, type PodContainer } from "./support/pod-container.js";

/**
 * The manifests rehearsed with the service image, without a cluster: each pod
 * is a container started with exactly its rendered environment (the Secret
 * filled with test values), user, read-only root filesystem, writable volumes
 * and memory limit; a Service is the round-robin balancer of support/balancer.ts.
 */

const ADMIN = { user: "k8s-admin", password: `pw-${randomBytes(12).toString("base64url")}` };
const MASTER_KEY = randomBytes(32).toString("base64");
const secretsFor = (databaseUrl?: string): Secrets => ({
  "sdwan-connections/master-key": MASTER_KEY,
  "sdwan-connections/admin-user": ADMIN.user,
  "sdwan-connections/admin-password": ADMIN.password,
  ...(databaseUrl === undefined ? {} : { "sdwan-connections/database-url": databaseUrl }),
});
const AUTHORIZATION = `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString("base64")}`;
const CONNECTIONS = "/rest/plugin/sdwan/connections";
/** Adds a connection without asking its orchestrator (`?force=true`): a write to the store. */
const addConnection = (origin: string, alias: string): Promise<Response> =>
  fetch(`${origin}${CONNECTIONS}?force=true`, {
    method: "POST",
    headers: { authorization: AUTHORIZATION, "content-type": "application/json" },
    body: JSON.stringify({
      alias,
      orchestratorUrl: "https://orchestrator.example.com",
      apiKey: `key-${randomBytes(8).toString("hex")}`,
    }),
  });

const STARTUP_MS = 90_000;
/** docs/deploy.md's restore of the embedded store: unpacked beside it, then renamed over it (atomic; the service re-reads a replaced file). */
const RESTORE = "cd $DATA_DIR && mkdir restore && tar -xf - -C restore && mv restore/* . && rmdir restore";
/** docs/deploy.md's backup of the embedded store: every file of it there is. */
const BACKUP =
  "cd $DATA_DIR && tar -cf - $(ls connections.json audit.jsonl grants.json tokens.json webhooks.json webhook-deliveries.json renewals.json health.json 2>/dev/null)";
const started: PodContainer[] = [];
const startPod = async (pod: ContainerRun, label: string): Promise<PodContainer> => {
  const container = await startPodContainer(SERVICE_IMAGE, pod, label);
  started.push(container);
  return container;
};
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

beforeAll(async () => {
  await assertContainerRuntime();
  const { seconds } = await buildServiceImage();
  process.stderr.write(`deploy: built ${SERVICE_IMAGE} in ${seconds} s\n`);
}, 900_000);

afterAll(async () => {
  await Promise.all(started.map((container) => container.remove()));
});

describe("the postgres overlay, rehearsed: two replicas on one PostgreSQL behind a Service", () => {
  const objects = renderOverlay("postgres");
  const container = serviceContainer(objects);
  let postgres: StartedPostgres;
  let pod: ContainerRun;
  let balancer: Balancer;
  const replicas: PodContainer[] = [];

  beforeAll(async () => {
    postgres = await startPostgres({ label: "deploy" });
    pod = containerRun(objects, secretsFor(postgres.connectionString));
    balancer = await startBalancer({ readinessPath: container.readinessProbe?.httpGet?.path ?? "", pollMs: 1_000 });
  }, 180_000);

  afterAll(async () => {
    await balancer?.close();
    await Promise.all(started.map((replica) => replica.remove()));
    await postgres?.stop();
  });

  it(
    "starts both replicas at once on an empty database: the schema is migrated once, and every probe answers",
    { timeout: STARTUP_MS * 2 },
    async () => {
      replicas.push(...(await Promise.all([startPod(pod, "deploy-a"), startPod(pod, "deploy-b")])));
      await Promise.all(
        replicas.map((replica) => waitUntilAnswers(replica, container.readinessProbe?.httpGet?.path ?? "", STARTUP_MS)),
      );
      const client = new pg.Client({ connectionString: postgres.connectionString });
      await client.connect();
      try {
        // Both started (a migration racing another would fail its pod's start), and each migration was recorded once.
        const { rows } = await client.query<{ version: number }>(
          "select version from schema_migrations order by version",
        );
        expect(rows.map((row) => row.version)).toEqual(
          MIGRATIONS.map((migration) => migration.version).sort((a, b) => a - b),
        );
      } finally {
        await client.end();
      }
      for (const replica of replicas) {
        for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
          const response = await fetch(`${replica.origin}${probe?.httpGet?.path}`);
          expect(response.status, `${replica.name} ${probe?.httpGet?.path}`).toBe(200);
        }
        expect((await fetch(`${replica.origin}/metrics`)).status).toBe(200);
      }
    },
  );

  it(
    "rolls each replica in turn under steady traffic (a new pod, then the old one's preStop pause and SIGTERM): no request fails",
    { timeout: 300_000 },
    async () => {
      for (const replica of replicas) balancer.add(replica.name, replica.origin);
      const failures: string[] = [];
      let answered = 0;
      let sending = true;
      const worker = async (): Promise<void> => {
        while (sending) {
          try {
            const response = await fetch(`${balancer.origin}${CONNECTIONS}`, {
              headers: { authorization: AUTHORIZATION },
              signal: AbortSignal.timeout(10_000),
            });
            await response.arrayBuffer();
            if (response.status === 200) answered += 1;
            else failures.push(`HTTP ${response.status}`);
          } catch (error) {
            failures.push(String(error));
          }
          await new Promise((done) => setTimeout(done, 20));
        }
      };
      // Traffic starts once the Service has a ready endpoint: the first request is a write through it.
      await expect
        .poll(async () => (await addConnection(balancer.origin, "branch-1")).status, { timeout: 10_000 })
        .toBe(200);
      const traffic = Promise.all(Array.from({ length: 4 }, worker));

      const exitCodes: number[] = [];
      for (const [index, old] of [...replicas].entries()) {
        const replacement = await startPod(pod, `deploy-new-${index}`);
        await waitUntilAnswers(replacement, container.readinessProbe?.httpGet?.path ?? "", STARTUP_MS);
        balancer.add(replacement.name, replacement.origin);
        await expect.poll(() => balancer.served()[replacement.name] ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);
        balancer.terminate(old.name);
        exitCodes.push(await old.terminate());
        replicas.push(replacement);
      }
      sending = false;
      await traffic;

      const peaks = await Promise.all(replicas.slice(2).map((replica) => replica.memoryPeak()));
      process.stderr.write(
        `deploy: ${answered} requests answered, ${failures.length} failed; served per pod ${JSON.stringify(balancer.served())}; ` +
          `cgroup memory peak of the new pods ${peaks.map(mib).join(", ")} (limit ${mib(pod.memoryLimitBytes)})\n`,
      );
      expect(failures).toEqual([]);
      expect(exitCodes).toEqual([0, 0]);
      expect(answered).toBeGreaterThan(100);
      for (const [name, served] of Object.entries(balancer.served())) expect(served, name).toBeGreaterThan(0);
      for (const peak of peaks) expect(peak).toBeLessThan(pod.memoryLimitBytes);
    },
  );
});

describe("the embedded overlay, rehearsed: one pod on its volume", () => {
  const objects = renderOverlay("embedded");
  const container = serviceContainer(objects);

  it(
    "starts on the volume (its data directory created inside it), is backed up and restored with the documented commands, and stops cleanly on SIGTERM",
    { timeout: 180_000 },
    async () => {
      const pod = containerRun(objects, secretsFor());
      expect(pod.writablePaths).toHaveLength(1);
      const instance = await startPod(pod, "deploy-embedded");
      await waitUntilAnswers(instance, container.readinessProbe?.httpGet?.path ?? "", STARTUP_MS);
      const aliases = async () =>
        (
          (await (
            await fetch(`${instance.origin}${CONNECTIONS}`, { headers: { authorization: AUTHORIZATION } })
          ).json()) as { alias: string }[]
        ).map((c) => c.alias);
      expect((await addConnection(instance.origin, "branch-1")).status).toBe(200);
      expect(await aliases()).toEqual(["branch-1"]);
      // docs/deploy.md's backup and restore, `kubectl exec` played by `docker exec`.
      const dataDir = pod.environment["SDWAN_DATA_DIR"] ?? "";
      const backup = await instance.exec(["sh", "-c", BACKUP.replaceAll("$DATA_DIR", dataDir)]);
      expect((await addConnection(instance.origin, "branch-2")).status).toBe(200);
      await instance.exec(["sh", "-c", RESTORE.replaceAll("$DATA_DIR", dataDir)], backup);
      expect(await aliases()).toEqual(["branch-1"]);
      expect(await instance.terminate()).toBe(0);
      expect(await instance.logs()).toContain(`"dataDir":"${dataDir}"`);
    },
  );
});
