import js from "@eslint/js";
import tseslint from "typescript-eslint";

const PUBLIC_ENTRY_ONLY = { regex: "^@sdwan-connections/[^/]+/(src|dist)/", message: "Import a package's public entry point." };
const ADAPTERS = ["secrets", "storage-lowdb", "storage-postgres", "orchestrator-portal", "orchestrator-simulator"];

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/.turbo/**", "**/coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-console": "error",
    },
  },
  {
    // Packages use each other only through public entry points, never deep imports.
    files: ["packages/*/src/**/*.ts", "packages/*/test/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { patterns: [PUBLIC_ENTRY_ONLY] }] },
  },
  {
    // The dependency rule, drivers → adapters → core: an adapter knows core (and the shared
    // secrets package), never a driver or another adapter, and takes typed options instead of
    // reading the environment (the simulator's own command line excepted).
    files: ADAPTERS.map((adapter) => `packages/${adapter}/src/**/*.ts`),
    ignores: ["**/*.spec.ts", "packages/orchestrator-simulator/src/main.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            PUBLIC_ENTRY_ONLY,
            { regex: "^@sdwan-connections/(?!(core|secrets)(/|$))", message: "An adapter imports only core and secrets, never a driver or another adapter." },
          ],
        },
      ],
      "no-restricted-properties": ["error", { object: "process", property: "env", message: "Adapters take typed options; only the driver's configuration reads the environment." }],
    },
  },
  {
    // The hexagon's inner rule: core's domain knows fp-ts, io-ts and node built-ins, nothing else.
    // Specs beside the code may also use the test tools; they are not shipped.
    // core/testing (in-memory adapters, builders) is used outside tests too: no test runner either.
    files: ["packages/core/src/**/*.ts", "packages/core/testing/**/*.ts"],
    ignores: ["**/*.spec.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^(?!(fp-ts|io-ts)(/|$)|node:|\\.{1,2}/)",
              message: "core/src and core/testing may import only fp-ts, io-ts, node: built-ins and core's own modules.",
            },
          ],
        },
      ],
    },
  },
);
