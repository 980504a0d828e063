import js from "@eslint/js";
import tseslint from "typescript-eslint";

const PUBLIC_ENTRY_ONLY = {
  regex: "^@sdwan-connections/[^/]+/(src|dist)/",
  message: "Import a package's public entry point.",
};
const PRODUCTION_ADAPTERS = ["secrets", "outbound-http", "storage-lowdb", "storage-postgres", "orchestrator-portal"];
const ADAPTERS = [...PRODUCTION_ADAPTERS, "orchestrator-simulator"];
const DRIVERS = ["http-express", "cli"];
/** An import pattern refusing every workspace package but `allowed` (and their sub-paths). */
const only = (allowed, message) => ({ regex: `^@sdwan-connections/(?!(${allowed.join("|")})(/|$))`, message });

// Traces are made at the composition's seams (docs/architecture.md, "Traces"): no other package knows OpenTelemetry.
const NO_OPENTELEMETRY = {
  regex: "^@opentelemetry/",
  message: "OpenTelemetry is the composition's alone (docs/architecture.md, Traces).",
};

const CORE_INNER_RULE = {
  regex: "^(?!(fp-ts|io-ts)(/|$)|node:|\\.{1,2}/)",
  message: "core/src and core/testing may import only fp-ts, io-ts, node: built-ins and core's own modules.",
};

// no-restricted-syntax entries. ESLint keeps one option list per rule and file: a later config's list replaces an
// earlier one's (it does not add to it), so each config below names every entry its files are held to.
const NO_DECORATORS = { selector: "Decorator", message: "Decorators live in the REST driver (http-express) only." };
/**
 * Failures are values (docs/architecture.md): what a function, a method or a function type answers is a
 * TaskEither, never a Promise<Either>. Only the answer's type is refused: a promise kept as a value (a load in
 * flight that later callers join) is a TaskEither already running, not a boundary.
 */
const NO_PROMISE_OF_EITHER = {
  selector: [
    ":matches(:function, TSDeclareFunction, TSEmptyBodyFunctionExpression, TSFunctionType, TSConstructorType, TSMethodSignature, TSCallSignatureDeclaration)",
    "TSTypeAnnotation",
    "TSTypeReference[typeName.name='Promise']",
    "TSTypeParameterInstantiation",
    "TSTypeReference:matches([typeName.name='Either'], [typeName.right.name='Either'])",
  ].join(" > "),
  message:
    "Failures are values: answer a TaskEither (TE.TaskEither<E, A>, a `() => Promise<Either>` the caller runs), not a Promise<Either>.",
};

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
    // Only the composition's configuration (and its copy of the environment, environment.ts) reads the environment;
    // everything else takes typed options.
    // (The simulator's own command line, the demo launcher and the bench kit, which starts the service as a
    // child process with the caller's PATH, are not part of the service.)
    files: ["packages/*/src/**/*.ts"],
    ignores: [
      "**/*.spec.ts",
      "packages/composition/src/config.ts",
      "packages/composition/src/environment.ts",
      "packages/orchestrator-simulator/src/main.ts",
      "packages/demo/src/**",
      "packages/bench-kit/src/**",
    ],
    rules: {
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message: "Only the composition package's configuration reads the environment.",
        },
      ],
    },
  },
  {
    // One failure style at module boundaries: no Promise<Either> in any package's sources, the REST driver's included.
    files: ["packages/*/src/**/*.{ts,tsx}"],
    rules: { "no-restricted-syntax": ["error", NO_PROMISE_OF_EITHER] },
  },
  {
    // inversify's decorated classes are the REST driver's own style; core, the adapters and the other packages
    // stay plain factories (docs/architecture.md, "Decorators live in the REST driver only").
    // (Their sources keep the rule above: this list replaces its list for them.)
    files: ["packages/*/src/**/*.{ts,tsx}"],
    ignores: ["packages/http-express/src/**"],
    rules: { "no-restricted-syntax": ["error", NO_DECORATORS, NO_PROMISE_OF_EITHER] },
  },
  {
    files: ["packages/*/testing/**/*.ts", "packages/*/contract/**/*.ts"],
    rules: { "no-restricted-syntax": ["error", NO_DECORATORS] },
  },
  // The dependency rule: drivers → composition → adapters → core. Nothing imports a driver.
  {
    // Nothing imports a driver: not a package, not a test (the demo launcher, a showcase of the REST driver, excepted).
    // First, so that the stricter rules below (which refuse drivers too) replace it for their files rather than
    // being replaced by it: ESLint keeps one option list per rule and file, the last matching config's.
    files: [
      "packages/*/src/**/*.ts",
      "packages/*/test/**/*.ts",
      "packages/*/testing/**/*.ts",
      "packages/*/bench/**/*.ts",
    ],
    ignores: ["packages/demo/**", ...DRIVERS.map((driver) => `packages/${driver}/**`)],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            PUBLIC_ENTRY_ONLY,
            { regex: `^@sdwan-connections/(${DRIVERS.join("|")})(/|$)`, message: "Nothing imports a driver." },
          ],
        },
      ],
    },
  },
  {
    // An adapter knows core (and the shared secrets and outbound-http packages), never a driver, the composition or
    // another adapter.
    files: ADAPTERS.map((adapter) => `packages/${adapter}/src/**/*.ts`),
    ignores: ["**/*.spec.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            PUBLIC_ENTRY_ONLY,
            NO_OPENTELEMETRY,
            only(["core", "secrets", "outbound-http"], "An adapter imports only core, secrets and outbound-http."),
          ],
        },
      ],
    },
  },
  {
    // The composition wires the production adapters into core; the simulator is a test double, never wired.
    files: ["packages/composition/src/**/*.ts"],
    ignores: ["**/*.spec.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            PUBLIC_ENTRY_ONLY,
            only(["core", ...PRODUCTION_ADAPTERS], "The composition imports core and the production adapters only."),
          ],
        },
      ],
    },
  },
  {
    // A driver uses the composition (and core's types); never an adapter directly, nor another driver.
    files: DRIVERS.map((driver) => `packages/${driver}/src/**/*.ts`),
    ignores: ["**/*.spec.ts"],
    // (The REST driver also serves the console package's built files, which it names through that package's entry.)
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            PUBLIC_ENTRY_ONLY,
            NO_OPENTELEMETRY,
            only(
              ["core", "composition", "console"],
              "A driver imports only the composition, core and the console's files.",
            ),
          ],
        },
      ],
    },
  },
  {
    // The console runs in a browser and talks to the service over HTTP only: in its bundle, of the workspace,
    // only core's wire (the codecs of the answers it decodes, browser-safe), so that each answer is described once,
    // and its glob matcher (no import at all), so that grant patterns match the same way, in linear time, on both sides.
    files: ["packages/console/src/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex: "^@sdwan-connections/(?!core/(?:wire|glob)$)",
              message: "The console uses the REST API; of the workspace it imports core/wire and core/glob only.",
            },
          ],
        },
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
          patterns: [CORE_INNER_RULE],
        },
      ],
    },
  },
  // core's own layers, lowest first: domain → ports → adapters → use-cases → services; a module imports only its own
  // layer and lower ones (core's inner rule above, repeated, as ESLint keeps one list per rule and file).
  ...[
    ["domain", ["ports", "adapters", "use-cases", "services"]],
    ["ports", ["adapters", "use-cases", "services"]],
    ["adapters", ["use-cases", "services"]],
    ["use-cases", ["services"]],
  ].map(([layer, higher]) => ({
    files: [`packages/core/src/${layer}/**/*.ts`],
    ignores: ["**/*.spec.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            CORE_INNER_RULE,
            {
              regex: `^\\.\\./(${higher.join("|")})/`,
              message: `core's ${layer} imports no higher layer (${higher.join(", ")}).`,
            },
          ],
        },
      ],
    },
  })),
);
