import js from "@eslint/js";
import tseslint from "typescript-eslint";

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
    // Adapters use each other only through public entry points, never deep imports.
    files: ["packages/*/src/**/*.ts", "packages/*/test/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^@sdwan-connections/[^/]+/(src|dist)/", message: "Import a package's public entry point." }] },
      ],
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
