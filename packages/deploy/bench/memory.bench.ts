/**
 * Memory of one pod as the manifests run it, for docs/deploy.md's sizing: the
 * service image started from each overlay (its environment, user, read-only
 * root, memory limit), its resident memory idle (the baseline, same run), after
 * 10,000 connections and after a partner's 10,000 customers are cached.
 * Writes the "deploy" section of docs/benchmarks.md.
 *
 *   pnpm --filter @sdwan-connections/deploy bench   (needs Docker, as the tests do)
 */
import { randomBytes } from "node:crypto";
import {
  machineLine,
  markdownTable,
  sized,
  startSimulatorProcess,
  writeBenchmarkSection,
} from "@sdwan-connections/bench-kit";
import { assertContainerRuntime, startPostgres } from "@sdwan-connections/e2e/support/containers";
import { buildServiceImage, SERVICE_IMAGE } from "@sdwan-connections/e2e/support/image";
import { OVERLAYS, type Overlay, renderOverlay } from "../test/support/kustomize.js";
import { containerRun } from "../test/support/pod.js";
import { startPodContainer, waitUntilAnswers, type PodContainer } from "../test/support/pod-container.js";

const CONNECTIONS = sized(10_000, 200);
const CUSTOMERS = sized(10_000, 200);
const WRITERS = 8;
const ADMIN = { user: "bench", password: `pw-${randomBytes(12).toString("base64url")}` };
const AUTHORIZATION = `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString("base64")}`;
const API = "/rest/plugin/sdwan";

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1);

/** VmRSS of the service (PID 1 of its container), in bytes. */
const residentMemory = async (pod: PodContainer): Promise<number> =>
  Number(/(\d+) kB/.exec((await pod.exec(["grep", "VmRSS", "/proc/1/status"])).toString("utf8"))?.[1]) * 1024;

const send = async (origin: string, method: string, path: string, body?: unknown): Promise<void> => {
  const response = await fetch(`${origin}${API}${path}`, {
    method,
    headers: { authorization: AUTHORIZATION, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${method} ${path}: HTTP ${response.status}`);
};

/** Adds `count` connections (forced: no orchestrator is asked), WRITERS at a time. */
const addConnections = async (origin: string, count: number): Promise<void> => {
  let next = 0;
  const writer = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) {
      await send(origin, "POST", "/connections?force=true", {
        alias: `branch-${i}`,
        orchestratorUrl: `https://vco${i % 50}.example.net`,
        apiKey: randomBytes(142).toString("base64"),
      });
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
};

const settle = () => new Promise((done) => setTimeout(done, 3_000));

const measure = async (overlay: Overlay, simulatorUrl: string, databaseUrl: string) => {
  const pod = containerRun(renderOverlay(overlay), {
    "sdwan-connections/master-key": randomBytes(32).toString("base64"),
    "sdwan-connections/admin-user": ADMIN.user,
    "sdwan-connections/admin-password": ADMIN.password,
    "sdwan-connections/database-url": databaseUrl,
  });
  const instance = await startPodContainer(SERVICE_IMAGE, pod, `deploy-bench-${overlay}`);
  try {
    await waitUntilAnswers(instance, "/readyz", 90_000);
    await send(instance.origin, "GET", "/connections");
    await settle();
    const idle = await residentMemory(instance);
    const started = Date.now();
    await addConnections(instance.origin, CONNECTIONS);
    const addSeconds = (Date.now() - started) / 1000;
    await send(instance.origin, "GET", "/connections");
    await settle();
    const withConnections = await residentMemory(instance);
    await send(instance.origin, "POST", "/connections?force=true", {
      alias: "big",
      orchestratorUrl: simulatorUrl,
      apiKey: "generated-partner-key-1",
    });
    await send(instance.origin, "GET", "/partner/big/customers");
    await settle();
    const withCustomers = await residentMemory(instance);
    const node = (await instance.exec(["node", "--version"])).toString("utf8").trim();
    return { overlay, idle, withConnections, withCustomers, addSeconds, limit: pod.memoryLimitBytes, node };
  } finally {
    await instance.remove();
  }
};

await assertContainerRuntime();
await buildServiceImage();
const postgres = await startPostgres({ label: "deploy-bench" });
const simulator = await startSimulatorProcess(CUSTOMERS);
try {
  const rows = [];
  for (const overlay of OVERLAYS) rows.push(await measure(overlay, simulator.url, postgres.connectionString));
  const table = markdownTable(
    [
      "overlay",
      "idle RSS (MiB, baseline)",
      `+ ${CONNECTIONS.toLocaleString("en")} connections (MiB)`,
      "growth",
      `+ ${CUSTOMERS.toLocaleString("en")} cached customers (MiB)`,
      "growth",
      "memory limit (MiB)",
    ],
    rows.map((row) => [
      row.overlay,
      mib(row.idle),
      mib(row.withConnections),
      `+${mib(row.withConnections - row.idle)}`,
      mib(row.withCustomers),
      `+${mib(row.withCustomers - row.withConnections)}`,
      mib(row.limit),
    ]),
  );
  await writeBenchmarkSection(
    "deploy",
    [
      "## deploy: memory of one pod, for sizing",
      "",
      `${await machineLine()} \`pnpm --filter @sdwan-connections/deploy bench\` (\`packages/deploy/bench/memory.bench.ts\`); the service runs Node ${rows[0]?.node} in the image.`,
      "The service image started from each overlay of `packages/deploy` as the rehearsal starts it (the overlay's environment,",
      "user, read-only root, memory limit). Resident memory (VmRSS) of the service, 3 s after each step: idle after one",
      `request (the baseline), after ${CONNECTIONS.toLocaleString("en")} connections added (forced, apiKeys of ~190 characters, ${WRITERS} writers: ` +
        `${rows.map((row) => `${row.overlay} ${row.addSeconds.toFixed(0)} s`).join(", ")}),`,
      `then after one partner's ${CUSTOMERS.toLocaleString("en")} customers were listed once (the orchestrator simulator, a child process,`,
      "generating them) and so cached.",
      "",
      table,
    ].join("\n"),
  );
  process.stdout.write(`${table}\n`);
} finally {
  simulator.child.kill();
  await postgres.stop();
}
