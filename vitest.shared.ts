import { defineConfig } from "vitest/config";

/**
 * Shared vitest setup for every package: `*.spec.ts` are fast unit tests,
 * `*.int.spec.ts` talk to real servers, files or containers. Both resolve
 * workspace packages to their TypeScript sources (the `sdwan-source` export
 * condition), so tests never need a build first.
 */
export const sharedConfig = defineConfig({
  resolve: { conditions: ["sdwan-source"] },
  ssr: { resolve: { conditions: ["sdwan-source"] } },
  test: {
    // CI adds a JSON report per package, which .ci/run sums into one closing line.
    reporters: process.env["CI"] ? ["default", "json"] : ["default"],
    outputFile: { json: ".test-results/vitest.json" },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["{src,testing,contract,test,examples}/**/*.spec.ts"],
          exclude: ["**/*.int.spec.ts", "**/node_modules/**"],
        },
      },
      {
        extends: true,
        test: {
          name: "int",
          include: ["{src,testing,contract,test}/**/*.int.spec.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
