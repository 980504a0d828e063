import type YAML from "yaml";

/**
 * The yaml library as its browser build: the same code and API as its Node build, without `process`. The
 * Node build reads two environment variables at every token it parses (its LOG_TOKENS and LOG_STREAM
 * debugging switches), and each read of process.env scans the whole C environment: with 100,000
 * SDWAN_APIKEY_… variables, parsing a file of 100,000 connections took minutes instead of a second.
 * yaml exports only its Node build to Node, so the browser build is imported by its path (pnpm links each
 * dependency into the package's node_modules); the bundle includes it the same way.
 */
export const loadYaml = async (): Promise<typeof YAML> =>
  // @ts-expect-error -- the browser build has no declarations of its own: they are the Node build's.
  ((await import("../node_modules/yaml/browser/index.js")) as { default: typeof YAML }).default;

/**
 * Why a text did not parse, where: `names a field twice` or `is not valid ${what}`, and the line yaml found it on.
 * Never yaml's own message, which quotes the text around the fault (a key, perhaps).
 */
export const parseFailure = (yaml: typeof YAML, error: unknown, what: string): string => {
  const parseError = error instanceof yaml.YAMLParseError ? error : undefined;
  const fault = parseError?.code === "DUPLICATE_KEY" ? "names a field twice" : `is not valid ${what}`;
  return `${fault}${parseError === undefined ? "" : ` near line ${parseError.linePos?.[0]?.line ?? "?"}`}`;
};
