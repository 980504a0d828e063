// For `--import`: a workspace package's build (its dist/) read by Node is an error, as on a fresh clone, where no
// package is built yet. The CLI's bundle is made from the workspace's sources (scripts/bundle.ts), so making it must
// never need another package's build.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(`
const BUILT = /\\/@sdwan-connections\\/[^/]+\\/dist\\/|\\/packages\\/(?!cli\\/)[^/]+\\/dist\\//;
export const resolve = async (specifier, context, next) => {
  const resolved = await next(specifier, context);
  if (BUILT.test(resolved.url)) throw new Error("a workspace package's build was read: " + resolved.url);
  return resolved;
};`)}`,
);
