import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";
import { keyVariable } from "../src/configuration-file.js";

// Issue 19, item 8: a configuration file comes from anyone, and its references must reach keys only.
describe("configuration files cannot reach the service's own secrets", { timeout: 30_000 }, () => {
  let root: string;
  let dataDir: string;
  const masterKey = Buffer.alloc(32, 5).toString("base64");

  const run = async (argv: readonly string[], env: Record<string, string> = {}, stdin = "") => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await runCli(argv, {
      stdout: { isTTY: false, write: (text: string) => stdout.push(text) },
      stderr: { isTTY: false, write: (text: string) => stderr.push(text) },
      readSecret: async () => stdin,
      env: { SDWAN_DATA_DIR: dataDir, SDWAN_LOG_LEVEL: "warn", ...env },
    });
    return { code, stdout: stdout.join(""), stderr: stderr.join("") };
  };
  const configuration = async (apiKeys: readonly string[]) => {
    const path = join(root, `sdwan-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(path, `connections:\n${apiKeys.map((apiKey, index) => `  - alias: c${index}\n    orchestratorUrl: https://vco.example.net/\n    apiKey: ${apiKey}\n`).join("")}`);
    return path;
  };
  const refusal = async (apiKey: string, env: Record<string, string> = {}) => {
    const result = await run(["apply", "-f", await configuration([apiKey]), "--force"], { SDWAN_APIKEY_C0: "a-key", ...env });
    expect(result.code, apiKey).toBe(2);
    expect(result.stdout).toBe("");
    return result.stderr;
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "sdwan-cli-config-"));
    dataDir = join(root, "data");
    await mkdir(dataDir, { mode: 0o700 });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("env: names only key variables (SDWAN_APIKEY_…), never a setting of the service", async () => {
    for (const name of ["SDWAN_MASTER_KEY", "SDWAN_ADMIN_PASSWORD", "SDWAN_DATABASE_URL", "HOME"]) {
      const stderr = await refusal(`env:${name}`, { SDWAN_MASTER_KEY: masterKey });
      expect(stderr).toContain(`connections.0.apiKey: env:${name}: only variables named SDWAN_APIKEY_… hold keys`);
      expect(stderr).not.toContain(masterKey);
    }
    expect((await run(["apply", "-f", await configuration(["env:SDWAN_APIKEY_C0"]), "--force"], { SDWAN_APIKEY_C0: "a-key" })).code).toBe(0);
  });

  it("file: reads only a small regular file outside the data directory", async () => {
    execFileSync("mkfifo", [join(root, "fifo")]);
    await writeFile(join(root, "big.key"), "k".repeat(16 * 1024 + 1));
    await writeFile(join(dataDir, "copied.key"), "a-key");
    await symlink(join(dataDir, "master.key"), join(root, "innocent.key"));
    // The store and its master key, made by a first apply.
    expect((await run(["apply", "-f", await configuration(["env:SDWAN_APIKEY_C0"]), "--force"], { SDWAN_APIKEY_C0: "a-key" })).code).toBe(0);
    const cases: [string, string][] = [
      [`file:${join(root, "fifo")}`, "is not a regular file"],
      ["file:/dev/urandom", "is not a regular file"],
      ["file:/dev/zero", "is not a regular file"],
      [`file:${root}`, "is not a regular file"],
      [`file:${join(root, "big.key")}`, "is larger than 16384 bytes"],
      [`file:${join(dataDir, "master.key")}`, "is in the data directory (SDWAN_DATA_DIR)"],
      [`file:${join(dataDir, "copied.key")}`, "is in the data directory (SDWAN_DATA_DIR)"],
      [`file:${join(root, "innocent.key")}`, "is in the data directory (SDWAN_DATA_DIR)"],
      [`file:${join(root, "missing.key")}`, "cannot be read (ENOENT)"],
    ];
    for (const [reference, problem] of cases) expect(await refusal(reference)).toContain(`connections.0.apiKey: ${reference}: ${problem}`);
  });

  it("--file must be a small regular file", async () => {
    execFileSync("mkfifo", [join(root, "fifo")]);
    for (const [file, problem] of [
      [join(root, "fifo"), "is not a regular file"],
      ["/dev/urandom", "is not a regular file"],
      [root, "is not a regular file"],
      [join(root, "missing.yaml"), "cannot be read (ENOENT)"],
    ] as const) {
      expect(await run(["apply", "-f", file]), file).toMatchObject({ code: 2, stdout: "", stderr: expect.stringMatching(new RegExp(`(^|\n)sdwan-connections: --file: ${problem.replace(/[()]/g, "\\$&")}; see 'sdwan-connections apply --help'\n$`)) });
    }
  });

  it("two connections may not share a reference", async () => {
    const stderr = await refusal("env:SDWAN_APIKEY_C0\n  - alias: other\n    orchestratorUrl: https://vco.example.net/\n    apiKey: env:SDWAN_APIKEY_C0");
    expect(stderr).toContain("connections.1.apiKey: is the reference of connections.0 too: each connection has its own key");
  });

  it("export gives distinct aliases distinct variables, and apply reads its own export back", async () => {
    const aliases = ["a.b", "a-b", "a_b", "A_2EB", "ab", "a.b.c"];
    expect(new Set(aliases.map(keyVariable)).size).toBe(aliases.length);
    expect(keyVariable("a.b")).toBe("SDWAN_APIKEY_A_2EB");
    for (const alias of aliases) expect((await run(["add", alias, "https://vco.example.net/", "--force"], {}, "old-key")).code).toBe(0);
    const path = join(root, "exported.yaml");
    await writeFile(path, (await run(["export"])).stdout);
    const env = Object.fromEntries(aliases.map((alias) => [keyVariable(alias), `key-of-${alias}`]));
    const applied = JSON.parse((await run(["apply", "-f", path, "--force"], env)).stdout) as { results: { alias: string; outcome: string }[] };
    expect(applied.results.map(({ outcome }) => outcome)).toEqual(aliases.map(() => "applied"));
    // Each connection got its own key, not another's.
    for (const alias of aliases) expect(await run(["key-check", alias], {}, `key-of-${alias}`), alias).toMatchObject({ code: 0 });
  });
});
