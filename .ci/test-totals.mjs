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
  // A file can fail with every test passed (a hook's error, an unhandled rejection): name it and its message.
  for (const result of report.testResults) {
    if (result.status === "failed") console.log(`  failed file ${result.name}: ${result.message || "(see its tests)"}`);
  }
  if (!report.success && report.numFailedTests === 0 && report.testResults.every((r) => r.status !== "failed")) {
    console.log(`  ${name}: the run failed outside any file (an unhandled error): see the log above`);
  }
}
if (totals.files === 0) {
  console.log("no vitest report found: no test ran");
  process.exit(1);
}
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
