import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// The REST service is a driver: tests of other packages never import it, they run it as the process it is.
const SERVICE_MAIN = fileURLToPath(new URL("../../http-express/src/main.ts", import.meta.url));

/**
 * What a process running the REST service's sources through tsx needs in its environment: tsx applies a
 * tsconfig only to the files it includes, and http-express's (whose classes use decorators) includes its own.
 */
export const SERVICE_SOURCES_ENV = {
  TSX_TSCONFIG_PATH: fileURLToPath(new URL("../../http-express/tsconfig.json", import.meta.url)),
};
const SIMULATOR_MAIN = fileURLToPath(new URL("../../orchestrator-simulator/src/main.ts", import.meta.url));

export interface ServiceProcess {
  readonly url: string;
  /** The process's id, to read its memory (`/proc/<pid>/status`). */
  readonly pid: number;
  /** Calls the API as the environment's admin (SDWAN_ADMIN_USER / _PASSWORD). */
  call(
    method: string,
    path: string,
    options?: { readonly body?: unknown },
  ): Promise<{ status: number; headers: Headers; text: string; json<T = unknown>(): T }>;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** SIGKILL: no drain, no flush, as a crash. */
  kill(): Promise<void>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * `pnpm start`'s service (sources through tsx) on 127.0.0.1, a free port, configured by `env`; from another checkout
 * of the repository when `root` names one (a benchmark's same-run baseline: the code before a change).
 */
export const startServiceProcess = async (env: Record<string, string>, root?: string): Promise<ServiceProcess> => {
  const inRoot = (path: string) => (root === undefined ? undefined : join(root, path));
  const main = inRoot("packages/http-express/src/main.ts") ?? SERVICE_MAIN;
  const tsconfig = inRoot("packages/http-express/tsconfig.json") ?? SERVICE_SOURCES_ENV.TSX_TSCONFIG_PATH;
  const child = spawn(process.execPath, ["--conditions=sdwan-source", "--import", "tsx", main], {
    // tsx resolved in that checkout (its own node_modules); unchanged otherwise.
    ...(root === undefined ? {} : { cwd: dirname(main) }),
    env: {
      PATH: process.env["PATH"] ?? "",
      TSX_TSCONFIG_PATH: tsconfig,
      SDWAN_HOST: "127.0.0.1",
      SDWAN_PORT: "0",
      SDWAN_LOG_LEVEL: "warn",
      // Background health is on by default (SPEC §6): off here unless a test turns it on, so rounds add no events it
      // counts. Another checkout (older code, whose default was off) keeps its own default: it may not take "0".
      ...(root === undefined ? { SDWAN_HEALTH_INTERVAL_S: "0" } : {}),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = once(child, "exit");
  let listening = false;
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // Searched until found only: a service logging each request grows the output by megabytes.
      const match = listening ? null : /listening on (http:\/\/[^/\s]+)/.exec(output);
      if (match?.[1] !== undefined) {
        listening = true;
        resolve(match[1]);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the service exited (${code}) before listening:\n${output}`)));
  });
  const authorization = `Basic ${Buffer.from(`${env["SDWAN_ADMIN_USER"]}:${env["SDWAN_ADMIN_PASSWORD"]}`).toString("base64")}`;
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return {
    url,
    pid: child.pid as number,
    call: async (method, path, options = {}) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization, ...(options.body === undefined ? {} : { "content-type": "application/json" }) },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, json: <T>() => JSON.parse(text) as T };
    },
    output: () => output,
    kill: () => signal("SIGKILL"),
    stop: () => signal("SIGTERM"),
  };
};

/**
 * The orchestrator simulator in a child process with one partner of `enterprises` generated customers
 * (`--generate 1:<enterprises>`), so that its memory is not the benchmark's.
 */
export const startSimulatorProcess = async (
  enterprises: number,
): Promise<{ readonly url: string; readonly child: ChildProcess }> => {
  const child = spawn(
    process.execPath,
    ["--conditions=sdwan-source", "--import", "tsx", SIMULATOR_MAIN, "--port", "0", "--generate", `1:${enterprises}`],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (\S+)/.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once("exit", () => reject(new Error(`simulator exited:\n${out}`)));
  });
  return { url, child };
};
