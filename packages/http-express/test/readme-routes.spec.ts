import { readdir, readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";

// Issue 22: the README named 3 of the 7 route files; this keeps the list from drifting again.
describe("the README", () => {
  it("names every route file", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const routeFiles = (await readdir(new URL("../src/routes/", import.meta.url))).filter(
      (file) => file.endsWith(".ts") && !file.endsWith(".spec.ts"),
    );
    expect(routeFiles.length).toBeGreaterThan(0);
    for (const file of routeFiles) expect(readme, file).toContain(`\`${file}\``);
  });
});
