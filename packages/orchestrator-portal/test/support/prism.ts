import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import nodeFetch from "node-fetch";
import type { FetchLike } from "../../src/index.js";

const SWAGGER = new URL(
  "../../../orchestrator-simulator/fixtures/vendor/orchestrator-portal-api-v1.swagger.json",
  import.meta.url,
);
const PRISM = fileURLToPath(new URL("../../node_modules/.bin/prism", import.meta.url));
const METHODS = [
  "/enterpriseProxy/getEnterpriseProxyProperty",
  "/enterprise/getEnterprise",
  "/enterpriseProxy/getEnterpriseProxyEnterprises",
];

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });

export interface PrismMock extends AsyncDisposable {
  /** Base URL to give the client as `orchestratorUrl`. */
  readonly url: string;
}

/**
 * A Stoplight Prism mock of the vendor's Swagger, on 127.0.0.1. Prism ignores
 * a Swagger 2 `basePath`, so the copy it serves has the three methods this
 * client calls re-keyed under `/portal/rest` (and only those, so it starts in
 * a second or two instead of parsing 290 methods).
 */
export const startPrismMock = async (): Promise<PrismMock> => {
  const swagger = JSON.parse(await readFile(SWAGGER, "utf8")) as { paths: Record<string, unknown>; basePath?: string };
  const dir = await mkdtemp(join(tmpdir(), "sdwan-prism-"));
  const file = join(dir, "portal.json");
  const { basePath: _basePath, ...rest } = swagger;
  await writeFile(
    file,
    JSON.stringify({
      ...rest,
      paths: Object.fromEntries(METHODS.map((path) => [`/portal/rest${path}`, swagger.paths[path]])),
    }),
  );
  const port = await freePort();
  const child = spawn(PRISM, ["mock", "-h", "127.0.0.1", "-p", String(port), file], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const listening = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start within 60 s:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Prism is listening")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited (${code}):\n${output}`));
    });
  });
  const stop = async () => {
    child.kill();
    await rm(dir, { recursive: true, force: true });
  };
  await listening.catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url: `http://127.0.0.1:${port}/`, [Symbol.asyncDispose]: stop };
};

export interface RecordedAnswer {
  readonly method: string;
  readonly status: number;
  readonly body: string;
}

/**
 * node-fetch with a `Prefer` header per portal method (how Prism is told which
 * answer to give), recording every answer so a test can say what it implies.
 */
export const preferringFetch = () => {
  const prefer = new Map<string, string>();
  const answers: RecordedAnswer[] = [];
  const fetch: FetchLike = async (url, init) => {
    const method = url.split("/portal/rest/")[1] ?? "";
    const header = prefer.get(method);
    const response = await nodeFetch(url, {
      ...init,
      headers: { ...init.headers, ...(header === undefined ? {} : { prefer: header }) },
    });
    const bytes = await response.arrayBuffer();
    answers.push({ method, status: response.status, body: new TextDecoder().decode(bytes) });
    return { status: response.status, headers: response.headers, arrayBuffer: async () => bytes };
  };
  return { fetch, prefer, answers };
};
