// Sums the vitest JSON reports of every package into the closing line CI reads.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";

const totals = { passed: 0, failed: 0, skipped: 0, files: 0 };
for (const name of readdirSync("packages")) {
  const file = join("packages", name, ".test-results", "vitest.json");
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, "utf8"));
  totals.passed += report.numPassedTests;
  totals.failed += report.numFailedTests;
  totals.skipped += report.numPendingTests + report.numTodoTests;
  totals.files += 1;
  console.log(`${name}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`);
}
if (totals.files === 0) {
  console.log("no vitest report found: no test ran");
  process.exit(1);
}
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
