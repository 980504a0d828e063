/**
 * What `main.ts`'s `import("./run.js")` is in the installed command (scripts/bundle.ts): the commands' bundle,
 * `cli.js` beside it, compiled with V8's code cache. Parsing and compiling the bundle is most of a command's start
 * on Node 20, which has no `module.enableCompileCache`; with the cache a start compiles almost nothing.
 *
 * One cache per bundle (its hash, in SDWAN_BUNDLE_HASH: V8 checks only a source's length), Node version and
 * command, written after a command's first successful run (so it holds what that command compiled), under the
 * user's cache directory (where writing one removes an earlier bundle's); none without HOME or XDG_CACHE_HOME. A
 * cache that cannot be read, is refused by V8 or cannot be written is only slower.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Script } from "node:vm";

declare const SDWAN_BUNDLE_HASH: string;

const bundle = join(__dirname, "cli.js");
const home = process.env["XDG_CACHE_HOME"] || (process.env["HOME"] ? join(process.env["HOME"], ".cache") : undefined);
const word = process.argv[2] ?? "";
const cacheFile =
  home === undefined
    ? undefined
    : join(
        home,
        "sdwan-connections",
        `${SDWAN_BUNDLE_HASH}-${process.version}-${process.arch}-${/^[a-z][a-z-]{0,30}$/.test(word) ? word : "-"}.v8`,
      );
const readCache = (): Buffer | undefined => {
  try {
    return cacheFile === undefined ? undefined : readFileSync(cacheFile);
  } catch {
    return undefined;
  }
};
const cachedData = readCache();
// As Node wraps a CommonJS module; `require` is this file's own, which resolves alike: cli.js is its neighbour.
const source = `(function (exports, require, module, __filename, __dirname) { ${readFileSync(bundle, "utf8")}\n});`;
const script = new Script(source, { filename: bundle, cachedData });
if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true))
  process.once("exit", (code) => {
    if (code !== 0) return;
    try {
      mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
      writeFileSync(`${cacheFile}.${process.pid}`, script.createCachedData(), { mode: 0o600 });
      renameSync(`${cacheFile}.${process.pid}`, cacheFile);
      // An earlier bundle's caches (the command upgraded) are never read again.
      for (const name of readdirSync(dirname(cacheFile)))
        if (!name.startsWith(SDWAN_BUNDLE_HASH)) rmSync(join(dirname(cacheFile), name), { force: true });
    } catch {
      // Only slower next time.
    }
  });
const module = { exports: {} };
(script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, bundle, __dirname);
