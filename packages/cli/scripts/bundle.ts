/**
 * The installable command: `dist/pack`, a package with no dependencies (everything bundled by esbuild,
 * the workspace packages included) and a `sdwan-connections` bin, so `npm pack dist/pack` then
 * `npm install -g <tarball>` works offline. Split in chunks loaded when needed: `--help` reads a few
 * kilobytes, `list` the embedded store's code, and PostgreSQL's driver only with SDWAN_STORAGE=postgres.
 */
import { chmod, copyFile, mkdir, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import cli from "../package.json" with { type: "json" };

const root = fileURLToPath(new URL("..", import.meta.url));
const out = `${root}dist/pack`;
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

await rm(out, { recursive: true, force: true });
await build({
  entryPoints: { main: `${root}src/main.ts` },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outdir: `${out}/lib`,
  chunkNames: "chunks/[name]-[hash]",
  minify: true,
  conditions: ["sdwan-source"],
  // pg's optional native binding, which nothing here uses.
  external: ["pg-native"],
  // Bundled CommonJS packages (pg, pino) call require: give every chunk one.
  banner: {
    js: 'import { createRequire as __sdwanRequire } from "node:module"; const require = __sdwanRequire(import.meta.url);',
  },
  plugins: [esModules],
  // The help texts, made here from the commands themselves: `--help` prints them without loading a command.
  // (As a string in the entry: an object would be hoisted into a chunk the entry then loads.)
  define: { SDWAN_STATIC_HELP: JSON.stringify(JSON.stringify((await import("../src/command-line.js")).staticHelp())) },
  logLevel: "warning",
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
      type: "module",
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
