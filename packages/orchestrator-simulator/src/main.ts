#!/usr/bin/env node
import { readFile } from "node:fs/promises";
import * as E from "fp-ts/lib/Either.js";
import { parseCliOptions } from "./cli.js";
import { loadDataset, startOrchestratorSimulator } from "./simulator.js";

// The command's output is its user interface, so it writes to stdout/stderr directly.
const print = (line: string): void => void process.stdout.write(`${line}\n`);

const main = async (): Promise<void> => {
  const parsed = parseCliOptions(process.argv.slice(2), process.env);
  if (E.isLeft(parsed)) throw new Error(parsed.left); // caught below: one line, exit 1
  const options = parsed.right;
  const simulator = await startOrchestratorSimulator({
    host: options.host,
    port: options.port,
    prefix: options.prefix,
    ...(options.refreshRevokesPredecessor === undefined
      ? {}
      : { refreshRevokesPredecessor: options.refreshRevokesPredecessor }),
    record: false,
    ...(options.generate === undefined ? {} : { generate: options.generate }),
    ...(options.dataFile === undefined ? {} : { data: await loadDataset(options.dataFile) }),
    ...(options.tls === undefined
      ? {}
      : {
          tls: { key: await readFile(options.tls.keyFile, "utf8"), cert: await readFile(options.tls.certFile, "utf8") },
        }),
  });
  const enterprises = simulator.data.partners.reduce((sum, partner) => sum + partner.enterprises.length, 0);
  print(`Orchestrator simulator listening on ${simulator.url}`);
  print(`Serving ${simulator.data.partners.length} partners with ${enterprises} enterprises.`);
  print("Partner keys (these are fake, sample-only credentials):");
  for (const partner of simulator.data.partners)
    print(
      `  ${partner.keys[0] ?? "(none)"}  enterpriseProxyId=${partner.enterpriseProxyId}  ${partner.enterprises.length} enterprises`,
    );
  print("Customer keys:");
  for (const { key, enterpriseId } of simulator.data.customerKeys.slice(0, 5))
    print(`  ${key}  enterprise ${enterpriseId}`);
  const example = simulator.data.partners[0]?.keys[0] ?? "KEY";
  print(
    `Try: curl -s -X POST -H 'Content-Type: application/json' -H 'Authorization: Token ${example}' -d '{}' ${simulator.url}portal/rest/enterpriseProxy/getEnterpriseProxyProperty`,
  );
  let stopping = false;
  const shutdown = () => {
    if (stopping) return; // a repeated signal while stopping: the first one's stop goes on
    stopping = true;
    void simulator.stop().then(() => process.exit(0));
  };
  // `on`, not `once`: a second signal must not find the default action (exit 143) while the first one's stop runs.
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
};

main().catch((error: unknown) => {
  process.stderr.write(`orchestrator-simulator: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
