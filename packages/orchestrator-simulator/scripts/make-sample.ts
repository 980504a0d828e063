/**
 * Regenerates fixtures/sample.json, deterministically (fixed seed): run with
 * `pnpm --filter @sdwan-connections/orchestrator-simulator make-sample`.
 * The keys are fake and say so.
 */
import { writeFile } from "node:fs/promises";
import { generateDataset } from "../src/dataset.js";

const dataset = generateDataset({
  partners: 4,
  enterprisesPerPartner: [180, 95, 40, 6],
  seed: 20_240_611,
  keyPrefix: "sample",
});
const target = new URL("../fixtures/sample.json", import.meta.url);
await writeFile(target, `${JSON.stringify(dataset, null, 1)}\n`);
process.stdout.write(
  `wrote ${target.pathname}: ${dataset.partners.length} partners, ${dataset.customerKeys.length} customer keys\n`,
);
