/**
 * What `main.ts`'s `import("./run.js")` is in the installed command (scripts/bundle.ts): the commands' bundle,
 * `cli.js` beside it, compiled with V8's code cache, and so each library beside it that a command requires. Parsing
 * and compiling the bundle is most of a command's start on Node 20, which has no `module.enableCompileCache`; with
 * the cache a start compiles almost nothing.
 *
 * One cache per build (its hash, in SDWAN_BUNDLE_HASH: V8 checks only a source's length), Node version, command
 * and file, written after a command's first successful run (so it holds what that command compiled), under the
 * user's cache directory (where writing one removes an earlier bundle's); none without HOME or XDG_CACHE_HOME. A
 * cache that cannot be read, is refused by V8 or cannot be written is only slower.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Script } from "node:vm";

declare const SDWAN_BUNDLE_HASH: string;

const home = process.env["XDG_CACHE_HOME"] || (process.env["HOME"] ? join(process.env["HOME"], ".cache") : undefined);
const word = process.argv[2] ?? "";
const command = /^[a-z][a-z-]{0,30}$/.test(word) ? word : "-";
const cacheFileOf = (name: string): string | undefined =>
  home === undefined
    ? undefined
    : join(
        home,
        "sdwan-connections",
        `${SDWAN_BUNDLE_HASH}-${process.version}-${process.arch}-${command}${name === "cli" ? "" : `-${name}`}.v8`,
      );
const readCache = (cacheFile: string | undefined): Buffer | undefined => {
  try {
    return cacheFile === undefined ? undefined : readFileSync(cacheFile);
  } catch {
    return undefined;
  }
};

// The scripts compiled without a usable cache, whose caches a successful run writes.
const uncached: (readonly [string, Script])[] = [];
process.once("exit", (code) => {
  if (code !== 0 || uncached.length === 0) return;
  try {
    for (const [cacheFile, script] of uncached) {
      mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
      writeFileSync(`${cacheFile}.${process.pid}`, script.createCachedData(), { mode: 0o600 });
      renameSync(`${cacheFile}.${process.pid}`, cacheFile);
    }
    // An earlier build's caches (the command upgraded) are never read again.
    const directory = dirname(uncached[0]?.[0] ?? "");
    for (const name of readdirSync(directory))
      if (!name.startsWith(SDWAN_BUNDLE_HASH)) rmSync(join(directory, name), { force: true });
  } catch {
    // Only slower next time.
  }
});

// cli.js, or a library beside it (`require("./pg.js")`), run once as Node runs a CommonJS module; what else they
// require (Node's modules) is this file's `require`'s, which resolves alike (they are its neighbours).
const nodeRequire = require;
const loaded = new Map<string, unknown>();
const load = (name: string): unknown => {
  if (loaded.has(name)) return loaded.get(name);
  const file = join(__dirname, `${name}.js`);
  const cacheFile = cacheFileOf(name);
  const cachedData = readCache(cacheFile);
  const source = `(function (exports, require, module, __filename, __dirname) { ${readFileSync(file, "utf8")}\n});`;
  const script = new Script(source, { filename: file, cachedData });
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true))
    uncached.push([cacheFile, script]);
  const module = { exports: {} };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, neighbour, module, file, __dirname);
  loaded.set(name, module.exports);
  return module.exports;
};
const neighbour = (id: string): unknown => {
  const name = /^\.\/([a-z-]+)\.js$/.exec(id)?.[1];
  return name === undefined ? nodeRequire(id) : load(name);
};
load("cli");
