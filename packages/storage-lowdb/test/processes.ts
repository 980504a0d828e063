import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const ADD_CONNECTIONS = fileURLToPath(new URL("./fixtures/add-connections.ts", import.meta.url));
const UPDATE_CONNECTION = fileURLToPath(new URL("./fixtures/update-connection.ts", import.meta.url));

export interface AddingProcess {
  readonly child: ChildProcess;
  /** Aliases whose add the child acknowledged so far. */
  readonly acknowledged: string[];
  /** Resolves when the child printed `ready` (store opened). */
  readonly ready: Promise<void>;
  /** Resolves when `n` adds were acknowledged. */
  acknowledgedAtLeast(n: number): Promise<void>;
  /** Resolves with the exit code or signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** Runs test/fixtures/add-connections.ts in a new node process, from TypeScript sources via tsx. */
export const startAddingProcess = (
  dataDir: string,
  prefix: string,
  count: number,
  inFlight: number,
  env: Record<string, string> = {},
): AddingProcess => {
  const child = spawn(
    process.execPath,
    ["--conditions=sdwan-source", "--import", "tsx", ADD_CONNECTIONS, dataDir, prefix, String(count), String(inFlight)],
    { cwd: PACKAGE_DIR, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const acknowledged: string[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    if (line === "ready") markReady();
    if (line.startsWith("ack ")) acknowledged.push(line.slice(4));
    for (const waiter of waiters.filter((w) => acknowledged.length >= w.n)) waiter.resolve();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => {
      markReady();
      for (const waiter of waiters) waiter.resolve();
      resolve({ code, signal, stderr });
    }),
  );
  return {
    child,
    acknowledged,
    ready,
    exited,
    acknowledgedAtLeast: (n) =>
      new Promise<void>((resolve) => (acknowledged.length >= n ? resolve() : waiters.push({ n, resolve }))),
  };
};

const AUDIT_TRAIL = fileURLToPath(new URL("./fixtures/audit-trail.ts", import.meta.url));

export interface FixtureProcess {
  readonly child: ChildProcess;
  /** Every line printed so far. */
  readonly lines: string[];
  /** Resolves with the first line printed that starts with `prefix`. */
  line(prefix: string): Promise<string>;
  /** Resolves with the exit code or signal, and what was printed to stderr. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/**
 * Runs test/fixtures/audit-trail.ts in a new node process; with `fileSizeLimit` (bytes, a multiple of 1024),
 * under `ulimit -f`: a write past it fails after writing what fits, as on a full disk.
 */
export const startFixture = (args: readonly string[], fileSizeLimit?: number): FixtureProcess => {
  const node = [process.execPath, "--conditions=sdwan-source", "--import", "tsx", AUDIT_TRAIL, ...args];
  const child =
    fileSizeLimit === undefined
      ? spawn(node[0] as string, node.slice(1), { cwd: PACKAGE_DIR, stdio: ["ignore", "pipe", "pipe"] })
      : spawn("bash", ["-c", `ulimit -f ${fileSizeLimit / 1024} && exec "$@"`, "bash", ...node], {
          cwd: PACKAGE_DIR,
          stdio: ["ignore", "pipe", "pipe"],
        });
  const lines: string[] = [];
  const waiters: { prefix: string; resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (printed) => {
    lines.push(printed);
    for (const waiter of waiters.filter((w) => printed.startsWith(w.prefix))) waiter.resolve(printed);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("exit", (code, signal) => {
      for (const waiter of waiters)
        waiter.reject(
          new Error(`the fixture exited (${code ?? signal}) before printing '${waiter.prefix}': ${stderr}`),
        );
      resolve({ code, signal, stderr });
    }),
  );
  return {
    child,
    lines,
    exited,
    line: (prefix) =>
      new Promise((resolve, reject) => {
        const printed = lines.find((l) => l.startsWith(prefix));
        if (printed !== undefined) resolve(printed);
        else waiters.push({ prefix, resolve, reject });
      }),
  };
};

/** Runs test/fixtures/update-connection.ts in a new node process: sets the apiKey of `alias`; resolves with its exit code and stderr. */
export const runUpdatingProcess = (
  dataDir: string,
  alias: string,
  apiKey: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> => {
  const child = spawn(
    process.execPath,
    ["--conditions=sdwan-source", "--import", "tsx", UPDATE_CONNECTION, dataDir, alias, apiKey],
    {
      cwd: PACKAGE_DIR,
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stderr })));
};
