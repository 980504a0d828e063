/**
 * `pnpm demo`: the orchestrator simulator with its sample data, plus the
 * service (on a fresh data directory unless SDWAN_DATA_DIR is set) with one
 * partner and one customer connection already added; prints a curl line
 * for every endpoint and how to point the CLI at its store, and runs until
 * Ctrl-C. A data directory it made is removed however it ends (a normal end,
 * Ctrl-C, SIGTERM, a port already taken): it holds a master key.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadSampleDataset, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { loadConfig, type Config } from "@sdwan-connections/composition";
import { BASE_PATH, startService } from "@sdwan-connections/http-express";

const out = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

const fail = (line: string): never => {
  process.stderr.write(`sdwan-connections demo: ${line}\n`);
  process.exit(2);
};

const env = { ...process.env };
if (env["SDWAN_DATA_DIR"] === undefined || env["SDWAN_DATA_DIR"] === "") {
  const made = await mkdtemp(join(tmpdir(), "sdwan-demo-"));
  env["SDWAN_DATA_DIR"] = made;
  // Every way out passes here (process.exit included); only SIGKILL does not.
  process.on("exit", () => rmSync(made, { recursive: true, force: true }));
}
// Signals end the process (so the data directory goes too); once the service is up, `stop` below closes it first.
// (Kept registered, not `once`: the store's lock library re-raises a signal when its handler is alone.)
let onSignal = (code: number): void => process.exit(code);
process.on("SIGINT", () => onSignal(130));
process.on("SIGTERM", () => onSignal(143));

/** A port taken by another process, said with the variable that moves it. */
const portTaken = (what: string, variable: string, port: number | string) =>
  `the ${what}'s port ${port} is taken (another service, \`pnpm start\` or a second demo?): choose another with ${variable}, e.g. ${variable}=0 pnpm demo for any free port`;
const demoPassword = randomBytes(12).toString("base64url");
if (env["SDWAN_ADMIN_USER"] === undefined && env["SDWAN_HTPASSWD_FILE"] === undefined) {
  env["SDWAN_ADMIN_USER"] = "demo";
  env["SDWAN_ADMIN_PASSWORD"] = demoPassword;
}
env["SDWAN_LOG_LEVEL"] ??= "warn";
const decoded = loadConfig(env);
const config: Config = decoded._tag === "Right" ? decoded.right : fail(decoded.left);

const data = await loadSampleDataset();
const simulatorPort = Number(env["SDWAN_DEMO_SIMULATOR_PORT"] ?? 0);
const simulator = await startOrchestratorSimulator({ data, host: "127.0.0.1", port: simulatorPort }).catch(
  (error: NodeJS.ErrnoException) =>
    fail(
      error.code === "EADDRINUSE"
        ? portTaken("simulator", "SDWAN_DEMO_SIMULATOR_PORT", simulatorPort)
        : `the simulator cannot start: ${error.message}`,
    ),
);

const service = await startService(config)();
if (service._tag === "Left") {
  await simulator.stop();
  fail(service.left.includes("EADDRINUSE") ? portTaken("service", "SDWAN_PORT", config.port) : service.left);
}
const running = (service as Extract<typeof service, { _tag: "Right" }>).right;

const user = config.admin?.user ?? "admin";
const password = config.admin?.password ?? "<your admin password>";
const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
const api = `${running.url}${BASE_PATH}`;

const [partner, other] = data.partners;
const customerKey = data.customerKeys[0];
if (partner?.keys[0] === undefined || customerKey === undefined)
  fail("the simulator's sample data has no partner or customer key");

const add = async (alias: string, apiKey: string): Promise<void> => {
  const response = await fetch(`${api}/connections`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify({ alias, orchestratorUrl: simulator.url, apiKey }),
  });
  // 409: a data directory from an earlier demo already has it.
  if (response.status !== 200 && response.status !== 409)
    fail(`adding ${alias} answered ${response.status}: ${await response.text()}`);
};
await add("demo-partner", partner?.keys[0] ?? "");
await add("demo-customer", customerKey?.key ?? "");

const u = `-u '${user}:${password}'`;
const json = `-H 'Content-Type: application/json'`;
const spareKey = other?.keys[0] ?? partner?.keys[0] ?? "";
out("");
out(`sdwan-connections demo`);
out(`  service:      ${api}   (data in ${config.dataDir})`);
out(`  simulator:    ${simulator.url}   (orchestrator portal API v1, sample data)`);
out(`  credentials:  ${user} / ${password}`);
if (config.console) out(`  console:      ${running.url}/console/   (sign in with the credentials above)`);
out(`  connections:  demo-partner (partner key), demo-customer (customer key)`);
out("");
out("Try:");
out(`  curl -s ${u} ${api}/connections`);
out(`  curl -s ${u} '${api}/connections/demo-partner?verbose=true'`);
out(`  curl -s ${u} ${api}/connections/demo-customer`);
out(`  curl -s ${u} ${api}/partner/demo-partner/customers`);
out(
  `  curl -s ${u} ${json} -d '{"alias":"lab","orchestratorUrl":"${simulator.url}","apiKey":"${spareKey}"}' '${api}/connections?dryrun=true'`,
);
out(
  `  curl -s ${u} ${json} -d '{"alias":"lab","orchestratorUrl":"${simulator.url}","apiKey":"${spareKey}"}' ${api}/connections`,
);
out(
  `  curl -s ${u} ${json} -X PUT -d '{"orchestratorUrl":"${simulator.url.replace(/\/$/, "")}"}' ${api}/connections/lab`,
);
out(
  `  curl -s ${u} ${json} -d '{"alias":"bad","orchestratorUrl":"${simulator.url}","apiKey":"wrong-key"}' ${api}/connections   # 422`,
);
out(`  curl -si ${u} -X DELETE ${api}/connections/lab   # 204`);
out(`  curl -si ${api}/connections   # 401 without credentials`);
out(`  curl -s ${running.url}/healthz; curl -s ${running.url}/readyz; curl -s ${running.url}/metrics | head`);
out(`  curl -s ${api}/openapi.json`);
out("");
out("The CLI on the demo's store (from the repository root, in another shell):");
out(`  export SDWAN_DATA_DIR=${resolve(config.dataDir)}`);
out("  pnpm -s cli list");
out("  pnpm -s cli get demo-partner");
out("  pnpm -s cli customers demo-partner -o table");
out("");
out("Ctrl-C stops the service and the simulator.");

const stop = (): void => {
  void running
    .close()
    .then(() => simulator.stop())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
onSignal = stop;
