import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HELP, runCli } from "../src/cli.js";
import { COMMANDS } from "../src/commands.js";

/** runCli in this process, with standard output as a terminal or not, on a fresh data directory. */
const run = async (argv: readonly string[], options: { readonly tty?: boolean; readonly stdin?: string; readonly dataDir?: string } = {}) => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(argv, {
    stdout: { isTTY: options.tty ?? false, write: (text: string) => stdout.push(text) },
    stderr: { isTTY: false, write: (text: string) => stderr.push(text) },
    readStdin: async () => options.stdin ?? "",
    env: { SDWAN_DATA_DIR: options.dataDir ?? "/nonexistent", SDWAN_LOG_LEVEL: "warn" },
  });
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
};

describe("help, usage and completion (no store needed)", () => {
  it("prints the overview for no command, --help and help", async () => {
    for (const argv of [[], ["--help"], ["help"]]) expect(await run(argv)).toEqual({ code: 0, stdout: HELP, stderr: "" });
    for (const command of COMMANDS) expect(HELP).toContain(command.name);
  });

  it("has --help for every command, naming its arguments and options", async () => {
    for (const command of COMMANDS) {
      const help = await run([command.name, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^usage: sdwan-connections ${command.name}`));
      for (const arg of command.args) expect(help.stdout).toContain(`<${arg}>`);
      for (const option of Object.keys(command.options)) expect(help.stdout).toContain(`--${option}`);
      expect((await run(["help", command.name])).stdout).toBe(help.stdout);
    }
  });

  it("refuses unknown commands, unknown options and wrong arguments with exit code 2", async () => {
    for (const argv of [["frobnicate"], ["list", "--bogus"], ["delete"], ["delete", "a", "b"], ["update", "a", "--url"], ["completion", "fish"]]) {
      const result = await run(argv);
      expect(result.code, argv.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/^sdwan-connections: /);
    }
  });

  it("prints bash and zsh completion scripts that know every command and option", async () => {
    const bash = await run(["completion", "bash"]);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain("complete -F _sdwan_connections sdwan-connections");
    for (const command of COMMANDS) {
      expect(bash.stdout).toContain(command.name);
      for (const option of Object.keys(command.options)) expect(bash.stdout).toContain(`--${option}`);
    }
    expect((await run(["completion", "zsh"])).stdout).toMatch(/^autoload -U \+X bashcompinit && bashcompinit\n/);
  });
});

describe("tables for people, JSON for scripts", () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "sdwan-cli-unit-"));
    for (const [alias, url] of [
      ["lab", "https://vco.example.net/"],
      ["production-east", "https://vco2.example.net/"],
    ] as const) {
      expect((await run(["add", alias, url, "--force"], { stdin: "a-key\n", dataDir })).code).toBe(0);
    }
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it("lists as an aligned table on a terminal", async () => {
    expect((await run(["list"], { tty: true, dataDir })).stdout).toBe(
      ["ALIAS            ORCHESTRATOR URL", "lab              https://vco.example.net/", "production-east  https://vco2.example.net/", ""].join("\n"),
    );
  });

  it("lists as JSON with --json, and whenever standard output is not a terminal", async () => {
    const expected = [
      { alias: "lab", orchestratorUrl: "https://vco.example.net/" },
      { alias: "production-east", orchestratorUrl: "https://vco2.example.net/" },
    ];
    expect(JSON.parse((await run(["list", "--json"], { tty: true, dataDir })).stdout)).toEqual(expected);
    expect(JSON.parse((await run(["list"], { tty: false, dataDir })).stdout)).toEqual(expected);
  });

  it("keeps exit codes: 3 for a missing connection, 4 for a taken alias", async () => {
    expect(await run(["delete", "ghost"], { dataDir })).toMatchObject({ code: 3, stderr: "sdwan-connections: No connection with alias 'ghost'.\n" });
    expect((await run(["add", "LAB", "https://vco.example.net/", "--force"], { stdin: "k", dataDir })).code).toBe(4);
  });
});
