/**
 * The installable command: `dist/pack`, a package with no dependencies (everything bundled by esbuild,
 * the workspace packages included) and a `sdwan-connections` bin, so `npm pack dist/pack` then
 * `npm install -g <tarball>` works offline. CommonJS files (no ES module loader to start, no file read
 * asynchronously): `main.js`, which prints the help texts it carries, and otherwise runs `cli.js`, every command,
 * through V8's code cache (scripts/cached-run.ts). The libraries only some commands use (PostgreSQL's driver,
 * OpenID, YAML, pino, the orchestrator's HTTP client) are files of their own beside it, read only when used.
 */
import { createHash } from "node:crypto";
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import cli from "../package.json" with { type: "json" };

const root = fileURLToPath(new URL("..", import.meta.url));
const installed = `${root}dist/pack`;
// Built beside it, then each file renamed into place: a command started from dist/pack meanwhile (a test, the
// start benchmark, `pnpm -s cli`) reads the old file or the new one, never a removed or half-written one.
const out = `${installed}.${process.pid}`;
const BIN = "lib/main.js";

// fp-ts and io-ts as ES modules (their es6 builds), not CommonJS: tree-shaken, and no copying of every
// module's exports at start.
const esModules: Plugin = {
  name: "fp-ts-es6",
  setup: (plugin) =>
    plugin.onResolve({ filter: /^(fp-ts|io-ts)(\/lib\/.*)?$/ }, (args) =>
      plugin.resolve(args.path.includes("/lib/") ? args.path.replace("/lib/", "/es6/") : `${args.path}/es6/index.js`, {
        kind: args.kind,
        resolveDir: args.resolveDir,
      }),
    ),
};

// Libraries that only some commands load (each only through `import()`, or from a package loaded so): each its own
// file beside cli.js, required when first used. In cli.js they were read, and their part of its code cache
// deserialized, at every start (`list`: 6% of its instructions). By the import that names them; yaml's browser build
// by its path (src/yaml.ts).
const SEPARATE: Record<string, RegExp> = {
  yaml: /\/yaml\/browser\/index\.js$/,
  pg: /^pg$/,
  "rate-limiter-flexible": /^rate-limiter-flexible$/,
  "node-fetch": /^node-fetch$/,
  cockatiel: /^cockatiel$/,
  "openid-client": /^openid-client$/,
  pino: /^pino$/,
};
const separateEntries: Record<string, string> = {};
const separately: Plugin = {
  name: "separate-libraries",
  setup: (plugin) => {
    for (const [name, filter] of Object.entries(SEPARATE))
      plugin.onResolve({ filter }, async (args) => {
        if (args.pluginData === name) return undefined;
        const resolved = await plugin.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          pluginData: name,
        });
        if (resolved.errors.length > 0) return resolved;
        separateEntries[name] = resolved.path;
        return { path: name, namespace: "separate" };
      });
    // A module that requires the library's file: an `import()` of it becomes a `require` too (cli.js runs in a
    // vm.Script, which has no `import()`), with main.js's `require` (scripts/cached-run.ts): lib/ beside it. Written
    // as an ES module that re-exports the file, so that a default import is the library's default export, as in one
    // bundle (as a CommonJS `module.exports = require(…)`, node-fetch's default import was its namespace object: every
    // orchestrator call of the installed command failed as "could not connect").
    plugin.onLoad({ filter: /.*/, namespace: "separate" }, (args) => ({
      contents: `export * from "./${args.path}.js"; export { default } from "./${args.path}.js";`,
      loader: "js",
    }));
    plugin.onResolve({ filter: /^\.\/.*\.js$/, namespace: "separate" }, (args) => ({
      path: args.path,
      external: true,
    }));
  },
};

const common = {
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  minify: true,
  conditions: ["sdwan-source"],
  logLevel: "warning",
} as const;
await rm(out, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: [`${root}src/run.ts`],
  outfile: `${out}/lib/cli.js`,
  // pg's optional native binding, which nothing here uses.
  external: ["pg-native"],
  plugins: [separately, esModules],
});
await build({
  ...common,
  entryPoints: Object.entries(separateEntries).map(([name, path]) => ({ in: path, out: name })),
  outdir: `${out}/lib`,
  external: ["pg-native"],
});
await build({
  ...common,
  entryPoints: [`${root}src/main.ts`],
  outfile: `${out}/${BIN}`,
  plugins: [
    {
      name: "cached-run",
      setup: (plugin) =>
        plugin.onResolve({ filter: /^\.\/run\.js$/ }, () => ({ path: `${root}scripts/cached-run.ts` })),
    },
  ],
  define: {
    // The help texts, made here from the commands themselves: `--help` prints them without loading a command.
    SDWAN_STATIC_HELP: JSON.stringify(JSON.stringify((await import("../src/command-line.js")).staticHelp())),
    // Of cli.js and the libraries beside it: each one's code cache is named by it.
    SDWAN_BUNDLE_HASH: JSON.stringify(
      (
        await Promise.all(
          ["cli", ...Object.keys(separateEntries)].sort().map((name) => readFile(`${out}/lib/${name}.js`)),
        )
      )
        .reduce((hash, file) => hash.update(file), createHash("sha256"))
        .digest("hex")
        .slice(0, 16),
    ),
  },
});
await mkdir(out, { recursive: true });
await writeFile(
  `${out}/package.json`,
  `${JSON.stringify(
    {
      name: "sdwan-connections",
      version: cli.version,
      description: cli.description,
      license: cli.license,
      engines: { node: ">=20.19" },
      bin: { "sdwan-connections": BIN },
      files: ["lib"],
    },
    null,
    2,
  )}\n`,
);
await copyFile(`${root}README.md`, `${out}/README.md`);
await chmod(`${out}/${BIN}`, 0o755);

const filesIn = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((file) => join(file.parentPath, file.name).slice(dir.length));
const built = await filesIn(out);
for (const path of built) {
  await mkdir(dirname(`${installed}${path}`), { recursive: true });
  await rename(`${out}${path}`, `${installed}${path}`);
}
await rm(out, { recursive: true, force: true });
// What an earlier build wrote and this one did not (a library no longer separate) would be packed too.
for (const path of await filesIn(installed)) if (!built.includes(path)) await rm(`${installed}${path}`);
