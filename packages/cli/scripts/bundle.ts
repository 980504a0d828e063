/**
 * The installable command: `dist/pack`, a package with no dependencies (everything bundled by esbuild,
 * the workspace packages included) and a `sdwan-connections` bin, so `npm pack dist/pack` then
 * `npm install -g <tarball>` works offline. Two CommonJS files (no ES module loader to start, no file read
 * asynchronously): `main.js`, which prints the help texts it carries, and otherwise runs `cli.js`, every command,
 * through V8's code cache (scripts/cached-run.ts). What only some commands use (PostgreSQL's driver, OpenID, YAML)
 * is compiled and run only when used.
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
  plugins: [esModules],
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
    SDWAN_BUNDLE_HASH: JSON.stringify(
      createHash("sha256")
        .update(await readFile(`${out}/lib/cli.js`))
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

const files = await readdir(out, { recursive: true, withFileTypes: true });
for (const file of files.filter((entry) => entry.isFile())) {
  const path = join(file.parentPath, file.name).slice(out.length);
  await mkdir(dirname(`${installed}${path}`), { recursive: true });
  await rename(`${out}${path}`, `${installed}${path}`);
}
await rm(out, { recursive: true, force: true });
