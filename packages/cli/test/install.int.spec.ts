import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { loadSampleDataset, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
// Node's option that makes reading a workspace package's build an error (test/sources-only.mjs).
const SOURCES_ONLY = `--import=${fileURLToPath(new URL("sources-only.mjs", import.meta.url))}`;

// The installed command: the bundle packed by npm, installed from the tarball alone (offline, no
// registry, no pnpm, no workspace), then run from its bin.
describe("sdwan-connections installed with npm install -g <tarball>", { timeout: 180_000 }, () => {
  let root: string;
  let bin: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "sdwan-cli-install-"));
    // As the README says to (`pnpm --filter @sdwan-connections/cli run pack`), from the workspace's sources alone: a
    // fresh clone has no package built, so reading one's dist/ is an error here.
    await run("pnpm", ["run", "build"], { cwd: PACKAGE_DIR, env: { ...process.env, NODE_OPTIONS: SOURCES_ONLY } });
    await run("npm", ["pack", "./dist/pack", "--pack-destination", root], { cwd: PACKAGE_DIR });
    const [tarball] = (await readdir(root)).filter((name) => name.endsWith(".tgz"));
    expect(tarball).toBe(`sdwan-connections-${packageJson.version}.tgz`);
    const prefix = join(root, "prefix");
    // An empty cache and --offline: nothing may come from a registry.
    await run(
      "npm",
      [
        "install",
        "-g",
        "--offline",
        "--no-audit",
        "--no-fund",
        "--prefix",
        prefix,
        "--cache",
        join(root, "npm-cache"),
        join(root, tarball as string),
      ],
      { cwd: root },
    );
    bin = join(prefix, "bin", "sdwan-connections");
  });

  afterAll(() => rm(root, { recursive: true, force: true }));

  const cli = (args: readonly string[], env: Record<string, string> = {}, input?: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        bin,
        [...args],
        { cwd: root, env: { PATH: process.env["PATH"] ?? "", SDWAN_LOG_LEVEL: "warn", ...env } },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }),
      );
      child.stdin?.end(input);
    });

  it("is an executable command that prints its version", async () => {
    expect((await stat(bin)).mode & 0o111).not.toBe(0);
    expect(await cli(["--version"])).toEqual({
      code: 0,
      stdout: `sdwan-connections ${packageJson.version}\n`,
      stderr: "",
    });
  });

  it("prints the help the sources print, from the texts it carries: --help loads no command's code", async () => {
    const { runCli } = await import("../src/cli.js");
    const sources = async (args: readonly string[]) => {
      let stdout = "";
      const code = await runCli(args, {
        stdout: { write: (text: string) => ((stdout += text), true) },
        stderr: { write: () => true },
        readSecret: async () => undefined,
      });
      return { code, stdout, stderr: "" };
    };
    for (const args of [["--help"], ["list", "--help"], ["help", "apply"], ["config", "-h"], []])
      expect(await cli(args), args.join(" ")).toEqual(await sources(args));
    // Without its bundle of commands (every command's code), the help still prints: it loads none of it.
    const commands = join(root, "prefix", "lib", "node_modules", "sdwan-connections", "lib", "cli.js");
    await rename(commands, `${commands}-away`);
    try {
      expect(await cli(["--help"])).toEqual(await sources(["--help"]));
      expect((await cli(["list"])).code).not.toBe(0);
    } finally {
      await rename(`${commands}-away`, commands);
    }
  });

  it("keeps V8's code cache per command (and library) in the user's cache directory: the same answers with it, without it, or with a damaged one", async () => {
    const env = { SDWAN_DATA_DIR: join(root, "cached-store"), XDG_CACHE_HOME: join(root, "cache") };
    const cacheDir = join(root, "cache", "sdwan-connections");
    expect((await cli(["add", "lab", "https://vco.example.net/", "--force"], env, "a-key\n")).code).toBe(0);
    const first = await cli(["list"], env);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    const caches = await readdir(cacheDir);
    expect(caches.filter((name) => name.endsWith("-list.v8"))).toHaveLength(1);
    expect(caches.filter((name) => name.endsWith("-add.v8"))).toHaveLength(1);
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    expect(await cli(["list"], env)).toEqual(first);
    // A library beside cli.js (yaml's, for -o yaml) has its own cache, for the command that required it.
    const asYaml = await cli(["list", "-o", "yaml"], env);
    expect(asYaml).toMatchObject({ code: 0, stderr: "" });
    expect((await readdir(cacheDir)).filter((name) => name.endsWith("-list-yaml.v8"))).toHaveLength(1);
    expect(await cli(["list", "-o", "yaml"], env)).toEqual(asYaml);
    // A cache another bundle or Node wrote, or a torn one, is only slower: V8 refuses it and it is written anew.
    const listCache = join(cacheDir, caches.find((name) => name.endsWith("-list.v8")) as string);
    await writeFile(listCache, "not a code cache");
    expect(await cli(["list"], env)).toEqual(first);
    expect((await readFile(listCache)).length).toBeGreaterThan(1_000);
    // Writing a cache removes an earlier bundle's (an upgrade): they would never be read again.
    await writeFile(join(cacheDir, "0123456789abcdef-v20.0.0-x64-list.v8"), "an earlier bundle's");
    await rm(listCache);
    expect(await cli(["list"], env)).toEqual(first);
    expect((await readdir(cacheDir)).some((name) => name.startsWith("0123456789abcdef-"))).toBe(false);
    // A command that failed leaves no cache of its own.
    expect((await cli(["no-such-command"], env)).code).toBe(2);
    expect((await readdir(cacheDir)).some((name) => name.endsWith("-no-such-command.v8"))).toBe(false);
  });

  it("adds and lists on the embedded store, and says where a missing store was looked for", async () => {
    const env = { SDWAN_DATA_DIR: join(root, "store") };
    expect((await cli(["list"], env)).code).toBe(8);
    expect((await cli(["add", "lab", "https://vco.example.net/", "--force"], env, "a-key\n")).code).toBe(0);
    expect(await cli(["list"], env)).toEqual({
      code: 0,
      stdout: `${JSON.stringify([{ alias: "lab", orchestratorUrl: "https://vco.example.net/" }], null, 2)}\n`,
      stderr: "",
    });
    expect(await cli(["list"])).toMatchObject({
      code: 8,
      stderr: expect.stringContaining(
        `no store in ${join(root, "data")} (SDWAN_DATA_DIR is not set: ./data in the current directory)`,
      ),
    });
  });

  it("asks the orchestrator through node-fetch's file: add checks the key, customers lists the partner's", async () => {
    const simulator = await startOrchestratorSimulator({ data: await loadSampleDataset(), host: "127.0.0.1", port: 0 });
    try {
      const env = { SDWAN_DATA_DIR: join(root, "orchestrator-store") };
      expect(await cli(["add", "lab", simulator.url], env, "sample-partner-key-1\n")).toMatchObject({ code: 0 });
      const customers = await cli(["customers", "lab", "-o", "json"], env);
      expect(customers.code, customers.stderr).toBe(0);
      expect((JSON.parse(customers.stdout) as unknown[]).length).toBeGreaterThan(0);
    } finally {
      await simulator.stop();
    }
  });

  it("reads a library only some commands use (each a file beside cli.js) only when one does: list reads none", async () => {
    const env = { SDWAN_DATA_DIR: join(root, "separate-store") };
    expect((await cli(["add", "lab", "https://vco.example.net/", "--force"], env, "a-key\n")).code).toBe(0);
    const listed = await cli(["list"], env);
    const asYaml = await cli(["list", "-o", "yaml"], env);
    expect(asYaml).toEqual({
      code: 0,
      stdout: "- alias: lab\n  orchestratorUrl: https://vco.example.net/\n",
      stderr: "",
    });
    const lib = join(root, "prefix", "lib", "node_modules", "sdwan-connections", "lib");
    const libraries = (await readdir(lib)).filter((name) => !["main.js", "cli.js"].includes(name));
    expect(libraries).toEqual(expect.arrayContaining(["yaml.js", "pg.js", "openid-client.js", "pino.js"]));
    const away = join(root, "libraries-away");
    await mkdir(away);
    for (const name of libraries) await rename(join(lib, name), join(away, name));
    try {
      expect(await cli(["list"], env)).toEqual(listed);
      expect(await cli(["list", "-o", "yaml"], env)).toMatchObject({
        code: 1,
        stderr: expect.stringContaining(`no such file or directory, open '${join(lib, "yaml.js")}'`),
      });
    } finally {
      for (const name of libraries) await rename(join(away, name), join(lib, name));
    }
  });

  it("takes for list nothing list does not use: no help text parsed, no standard stream made (stdin, stdout, stderr), no user looked up, no look at the audit trail's end (issue 40)", async () => {
    const env = { SDWAN_DATA_DIR: join(root, "counted-store") };
    expect((await cli(["add", "lab", "https://vco.example.net/", "--force"], env, "a-key\n")).code).toBe(0);
    // Counts, in the installed command's own process, the parses of its help texts and the making of process.stdin,
    // stdout and stderr (each a net.Socket on a pipe, as here: node:net loaded for it).
    const counter = join(root, "count-start.cjs");
    await writeFile(
      counter,
      `const parse = JSON.parse;
let helpParses = 0;
JSON.parse = function (text, ...rest) {
  if (typeof text === "string" && text.includes('"--version":')) helpParses += 1;
  return parse.call(this, text, ...rest);
};
const os = require("node:os");
const userInfo = os.userInfo;
let userLookups = 0;
os.userInfo = (...args) => ((userLookups += 1), userInfo(...args));
const made = { stdinMade: 0, stdoutMade: 0, stderrMade: 0 };
for (const name of ["stdin", "stdout", "stderr"]) {
  const stream = Object.getOwnPropertyDescriptor(process, name);
  const key = name + "Made";
  Object.defineProperty(process, name, { ...stream, get() { made[key] += 1; return stream.get.call(process); } });
}
process.on("exit", () => require("node:fs").writeSync(2, JSON.stringify({ helpParses, userLookups, ...made })));
`,
    );
    const main = join(root, "prefix", "lib", "node_modules", "sdwan-connections", "lib", "main.js");
    const counted = async (args: readonly string[], input = "") => {
      const started = run(process.execPath, ["--require", counter, main, ...args], {
        cwd: root,
        env: { PATH: process.env["PATH"] ?? "", SDWAN_LOG_LEVEL: "warn", ...env },
      });
      started.child.stdin?.end(input);
      const { stdout, stderr } = await started;
      return { stdout, counts: JSON.parse(stderr.slice(stderr.lastIndexOf("{"))) as Record<string, number> };
    };
    const listed = await counted(["list"]);
    expect(listed.stdout).toBe((await cli(["list"], env)).stdout);
    const none = { helpParses: 0, stdinMade: 0, userLookups: 0, stdoutMade: 0, stderrMade: 0 };
    expect(listed.counts).toEqual(none);
    expect((await counted(["list", "-o", "table"])).counts).toEqual(none);
    // What counts them sees them where they are used: the help, and the key read from standard input; process.stderr
    // for a message, and process.stdout for a terminal (a pipe is written to directly, src/standard-output.ts).
    expect((await counted(["--help"])).counts).toEqual({ ...none, helpParses: 1 });
    const added = await counted(["add", "lab-2", "https://vco.example.net/", "--force"], "a-key\n");
    expect(added.counts["helpParses"]).toBe(0);
    expect(added.counts["stdinMade"]).toBeGreaterThan(0);
    expect(added.counts["userLookups"]).toBe(1);
    const refused = (await counted(["get", "nobody"]).catch((error: unknown) => error)) as { stderr: string };
    expect(refused.stderr).toContain("No connection with alias 'nobody'");
    expect(JSON.parse(refused.stderr.slice(refused.stderr.lastIndexOf("{")))).toMatchObject({ stderrMade: 1 });
    // What a crash left at the trail's end is the next writer's to mend: list leaves it, add mends it.
    const trail = join(env.SDWAN_DATA_DIR, "audit.jsonl");
    await writeFile(trail, '{"id":"cut short', { flag: "a" });
    const torn = await readFile(trail, "utf8");
    expect((await counted(["get", "lab-2"])).stdout).toContain("lab-2");
    expect((await counted(["list"])).stdout).toContain("lab-2");
    expect(await readFile(trail, "utf8")).toBe(torn);
    await counted(["delete", "lab-2"]);
    expect(await readFile(trail, "utf8")).not.toContain("cut short");
  });

  it("signs in through openid-client's file: login asks the provider the service names", async () => {
    const asked: string[] = [];
    const server = createServer((request, response) => {
      asked.push(request.url ?? "");
      if (request.url !== "/rest/plugin/sdwan/auth/config") return void response.writeHead(404).end();
      const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ oidc: { issuer, clientId: "cli", scopes: [] } }));
    });
    await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const result = await cli(["login", "--server", url], { XDG_CONFIG_HOME: join(root, "login-config") });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("login: the provider refused the sign-in");
      expect(asked).toEqual(["/rest/plugin/sdwan/auth/config", "/.well-known/openid-configuration"]);
    } finally {
      server.close();
    }
  });

  it("holds no dependency-injection container: the CLI composes without inversify (it weighs on every start)", async () => {
    const files = (await readdir(join(PACKAGE_DIR, "dist/pack/lib"), { recursive: true })).filter((name) =>
      name.endsWith(".js"),
    );
    const texts = await Promise.all(files.map((name) => readFile(join(PACKAGE_DIR, "dist/pack/lib", name), "utf8")));
    expect(texts.filter((text) => /inversify/i.test(text))).toEqual([]);
  });

  // Was exit 2 here, against the README's 7 for a storage failure (issue 36, 9): a database out of reach is one.
  it("loads PostgreSQL's driver only when asked: a database that cannot be reached is a storage failure (exit 7), not a missing module", async () => {
    const result = await cli(["list"], {
      SDWAN_STORAGE: "postgres",
      SDWAN_DATABASE_URL: "postgres://nobody@127.0.0.1:9/none",
      SDWAN_MASTER_KEY: Buffer.alloc(32, 1).toString("base64"),
    });
    expect(result.code).toBe(7);
    expect(result.stderr).toMatch(/^sdwan-connections: SDWAN_DATABASE_URL: /);
    expect(result.stderr).not.toMatch(/Cannot find (module|package)|ERR_MODULE_NOT_FOUND/);
  });
});

// Issue 30: `pnpm -s cli …` printed turbo's banner and took seconds before anything, every time.
describe("pnpm -s cli in the repository", { timeout: 180_000 }, () => {
  const repository = join(PACKAGE_DIR, "../..");
  const pnpmCli = () => run("pnpm", ["-s", "cli", "--version"], { cwd: repository });

  it("prints only the answer when the bundle is up to date, and rebuilds it, saying so on stderr, when a source changed", async () => {
    await pnpmCli();
    expect(await pnpmCli()).toEqual({ stdout: `sdwan-connections ${packageJson.version}\n`, stderr: "" });
    // A dependency's source changed after the bundle was built.
    const built = (await stat(join(PACKAGE_DIR, "dist/pack/lib/main.js"))).mtime;
    const source = join(PACKAGE_DIR, "../core/src/index.ts");
    const later = new Date(built.getTime() + 1_000);
    await utimes(source, later, later);
    // Rebuilt from the sources alone, as on a fresh clone.
    const rebuilt = await run("pnpm", ["-s", "cli", "--version"], {
      cwd: repository,
      env: { ...process.env, NODE_OPTIONS: SOURCES_ONLY },
    });
    expect(rebuilt.stdout).toBe(`sdwan-connections ${packageJson.version}\n`);
    expect(rebuilt.stderr).toBe("sdwan-connections: building the CLI (its sources changed since the last build)\n");
    expect(await pnpmCli()).toEqual({ stdout: `sdwan-connections ${packageJson.version}\n`, stderr: "" });
  });
});
