import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import { help, runCli } from "./cli.js";
import { COMMANDS } from "./commands.js";

interface RunOptions {
  readonly tty?: boolean;
  readonly columns?: number;
  readonly stdin?: string;
  readonly dataDir?: string;
  readonly env?: Record<string, string>;
}

/** runCli in this process, with standard output as a terminal or not, on a fresh data directory. */
const run = async (argv: readonly string[], options: RunOptions = {}) => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(argv, {
    stdout: {
      isTTY: options.tty ?? false,
      columns: options.columns ?? 100,
      write: (text: string) => stdout.push(text),
    },
    stderr: { isTTY: false, write: (text: string) => stderr.push(text) },
    readSecret: async () => (options.stdin ?? "").replace(/\r?\n$/, ""),
    env: { SDWAN_DATA_DIR: options.dataDir ?? "/nonexistent", SDWAN_LOG_LEVEL: "warn", ...options.env },
  });
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
};

const SHOWN_COMMANDS = COMMANDS.filter((command) => command.hidden !== true);

describe("help, usage and completion (no store needed)", () => {
  it("prints the overview for no command, --help and help", async () => {
    for (const argv of [[], ["--help"], ["help"], ["help", "--help"], ["help", "help"]])
      expect(await run(argv)).toEqual({ code: 0, stdout: help(), stderr: "" });
    for (const command of [...SHOWN_COMMANDS.map(({ name }) => name), "config", "completion"])
      expect(help()).toContain(`  ${command}`);
    expect(help()).not.toContain("__complete");
  });

  it("prints the package's version", async () => {
    for (const argv of [["--version"], ["-V"], ["version"]])
      expect(await run(argv)).toEqual({ code: 0, stdout: `sdwan-connections ${packageJson.version}\n`, stderr: "" });
  });

  it("has --help for every command, naming its arguments and options, exiting 0", async () => {
    for (const command of SHOWN_COMMANDS) {
      const help = await run([command.name, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^usage: sdwan-connections ${command.name}`));
      for (const arg of command.args) expect(help.stdout).toContain(`<${arg}>`);
      for (const option of Object.keys(command.options)) expect(help.stdout).toContain(`--${option}`);
      expect((await run(["help", command.name])).stdout).toBe(help.stdout);
    }
    for (const local of ["completion", "config"])
      expect(await run([local, "--help"])).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(new RegExp(`^usage: sdwan-connections ${local}`)),
      });
  });

  it("refuses usage errors with exit code 2, in one line of its own words and a hint", async () => {
    const cases: [string[], string][] = [
      [["frobnicate"], "unknown command 'frobnicate'; see 'sdwan-connections --help'"],
      [["lsit"], "unknown command 'lsit'; did you mean 'list'?; see 'sdwan-connections --help'"],
      [["valdate", "lab"], "unknown command 'valdate'; did you mean 'validate'?; see 'sdwan-connections --help'"],
      [["help", "lsit"], "unknown command 'lsit'; did you mean 'list'?; see 'sdwan-connections --help'"],
      [["--bogus"], "unknown option --bogus; see 'sdwan-connections --help'"],
      [["list", "--bogus"], "list: unknown option --bogus; see 'sdwan-connections list --help'"],
      [["list", "-x"], "list: unknown option -x; see 'sdwan-connections list --help'"],
      [["list", "--jsno"], "list: unknown option --jsno; did you mean '--json'?; see 'sdwan-connections list --help'"],
      [["--versoin"], "unknown option --versoin; did you mean '--version'?; see 'sdwan-connections --help'"],
      [["list", "--json=yes"], "list: --json takes no value; see 'sdwan-connections list --help'"],
      [
        ["list", "-o", "xml"],
        "list: -o must be table, wide, json or yaml, not 'xml'; see 'sdwan-connections list --help'",
      ],
      [["delete"], "delete: expects <alias>; see 'sdwan-connections delete --help'"],
      [["delete", "a", "b"], "delete: expects <alias>; see 'sdwan-connections delete --help'"],
      [["list", "extra"], "list: takes no arguments; see 'sdwan-connections list --help'"],
      [["update", "a", "--url"], "update: --url needs a value; see 'sdwan-connections update --help'"],
      [["update", "a", "--url", "--force"], "update: --url needs a value; see 'sdwan-connections update --help'"],
      [
        ["completion", "fish"],
        "completion: the shell must be bash or zsh, not 'fish'; see 'sdwan-connections completion --help'",
      ],
      [["tokens"], "tokens: needs a subcommand: create, list, renew, revoke; see 'sdwan-connections help tokens'"],
      [
        ["webhooks", "lsit"],
        "webhooks: unknown subcommand 'lsit': list, add, delete, ping, deliveries, redeliver; see 'sdwan-connections help webhooks'",
      ],
      [
        ["grants", "add", "group:noc"],
        "grants add: expects <subject> <pattern> <verb>; see 'sdwan-connections grants add --help'",
      ],
    ];
    for (const [argv, line] of cases)
      expect(await run(argv), argv.join(" ")).toEqual({ code: 2, stdout: "", stderr: `sdwan-connections: ${line}\n` });
  });

  it("prints bash and zsh completion scripts that know every command and option, and complete aliases offline", async () => {
    const bash = await run(["completion", "bash"]);
    expect(bash.code).toBe(0);
    expect(bash.stdout).toContain("complete -F _sdwan_connections sdwan-connections");
    for (const command of SHOWN_COMMANDS) {
      expect(bash.stdout).toContain(command.name);
      for (const option of Object.keys(command.options)) expect(bash.stdout).toContain(`--${option}`);
    }
    expect(bash.stdout).toContain(
      `validate) if [ "$COMP_CWORD" -eq 2 ]; then words="$(sdwan-connections __complete aliases 2>/dev/null)"`,
    );
    expect(bash.stdout).toContain('completion) words="bash zsh --help" ;;');
    expect((await run(["completion", "zsh"])).stdout).toMatch(/^autoload -U \+X bashcompinit && bashcompinit\n/);
  });
});

// Issue 30: "completion offers `--` for `-o`, no files for `-f`, existing aliases for `add`". The script run by a real bash.
describe("the completion script in bash", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "sdwan-cli-completion-"));
    await writeFile(join(dir, "connections.yaml"), "[]\n");
    await writeFile(join(dir, "other.json"), "[]\n");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  // What bash offers after `words` (the command line up to the cursor, the last word being completed), in `dir`;
  // the CLI's own `__complete aliases` answers two stored aliases.
  const offered = async (...words: string[]): Promise<string[]> => {
    const script = (await run(["completion", "bash"])).stdout;
    const line = ["sdwan-connections", ...words].map((word) => `'${word}'`).join(" ");
    const shell = `sdwan-connections() { printf 'lab\\nprod\\n'; }
${script}
COMP_WORDS=(${line}); COMP_CWORD=${words.length}; _sdwan_connections; printf '%s\\n' "\${COMPREPLY[@]}"`;
    return execFileSync("bash", ["--norc", "-c", shell], { cwd: dir, encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .sort();
  };

  it("completes -o with its values, -f with files, existing aliases but not for add, nothing for a free value", async () => {
    expect(await offered("list", "-o", "")).toEqual(["json", "table", "wide", "yaml"]);
    expect(await offered("validate", "lab", "--output", "")).toEqual(["json", "table", "yaml"]);
    expect(await offered("add", "new", "https://vco.example.net/", "-o", "j")).toEqual(["json"]);
    expect(await offered("export", "-o", "")).toEqual(["json", "yaml"]);
    expect(await offered("apply", "-f", "")).toEqual(["connections.yaml", "other.json"]);
    expect(await offered("apply", "--file", "c")).toEqual(["connections.yaml"]);
    expect(await offered("get", "")).toEqual(["lab", "prod"]);
    expect(await offered("audit", "--alias", "p")).toEqual(["prod"]);
    // A new alias: its options, never the stored ones.
    expect(await offered("add", "")).toEqual([
      "--api-key-ref",
      "--dry-run",
      "--force",
      "--help",
      "--json",
      "--key-renewal",
      "--output",
    ]);
    expect(await offered("update", "lab", "--key-renewal", "")).toEqual(["auto", "off"]);
    expect(await offered("update", "lab", "--url", "")).toEqual([]);
    expect(await offered("update", "lab", "--d")).toEqual(["--dry-run"]);
  });

  it("completes the admin groups: their subcommands, each one's options, listed values", async () => {
    expect(await offered("t")).toEqual(["tokens"]);
    expect(await offered("webhooks", "")).toEqual(["add", "delete", "deliveries", "list", "ping", "redeliver"]);
    expect(await offered("tokens", "create", "ci", "--e")).toEqual(["--expires-in-days"]);
    expect(await offered("webhooks", "deliveries", "some-id", "--status", "")).toEqual([
      "dead",
      "delivered",
      "pending",
    ]);
    expect(await offered("webhooks", "add", "https://nms.example.net/", "--kind", "")).toEqual([
      "cloudevents",
      "opennms",
    ]);
    expect(await offered("grants", "")).toEqual(["add", "delete", "list"]);
  });
});

describe("the store: one rule, read commands never create one", () => {
  let parent: string;
  beforeEach(async () => {
    parent = await mkdtemp(join(tmpdir(), "sdwan-cli-store-"));
  });
  afterEach(() => rm(parent, { recursive: true, force: true }));

  it("a read on a missing store says where it looked and how to point elsewhere, exit 8, and creates nothing", async () => {
    const dataDir = join(parent, "data");
    for (const argv of [
      ["list"],
      ["get", "lab"],
      ["validate", "lab"],
      ["customers", "lab"],
      ["health"],
      ["export"],
      ["audit"],
      ["delete", "lab"],
    ]) {
      const result = await run(argv, { dataDir });
      expect(result, argv.join(" ")).toEqual({
        code: 8,
        stdout: "",
        stderr: `sdwan-connections: no store in ${dataDir} (SDWAN_DATA_DIR); set SDWAN_DATA_DIR to the service's data directory (pnpm demo prints the line to export)\n`,
      });
    }
    expect(await readdir(parent)).toEqual([]);
    // The completion script asks quietly.
    expect(await run(["__complete", "aliases"], { dataDir })).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  // Issue 27: a dry run created the data directory, its master key and the store.
  it("a dry run creates nothing: apply plans every entry created, add --dry-run finds no store", async () => {
    const filesDir = await mkdtemp(join(tmpdir(), "sdwan-cli-file-"));
    const file = join(filesDir, "sdwan.yaml");
    await writeFile(
      file,
      "connections:\n  - alias: lab\n    orchestratorUrl: https://vco.example.net/\n    apiKey: env:SDWAN_APIKEY_LAB\n",
    );
    const dataDir = join(parent, "data");
    const planned = await run(["apply", "-f", file, "--dry-run", "-o", "table"], {
      dataDir,
      env: { SDWAN_APIKEY_LAB: "a-key" },
    });
    expect(planned).toEqual({
      code: 0,
      stdout:
        "Plan: 1 to create, 0 to update, 0 to delete, 0 unchanged\n  + create    lab, key from env:SDWAN_APIKEY_LAB\n",
      stderr: "",
    });
    expect((await run(["apply", "-f", file, "--dry-run"], { dataDir })).stderr).toContain(
      "env:SDWAN_APIKEY_LAB gives no key, and one is needed to create this connection",
    );
    expect(
      (await run(["add", "lab", "https://vco.example.net/", "--dry-run"], { dataDir, stdin: "a-key\n" })).code,
    ).toBe(8);
    expect(await readdir(parent)).toEqual([]);
    await rm(filesDir, { recursive: true, force: true });
  });

  it("an add creates the store, saying where", async () => {
    const dataDir = join(parent, "data");
    const added = await run(["add", "lab", "https://vco.example.net/", "--force"], { stdin: "a-key\n", dataDir });
    expect(added).toEqual({
      code: 0,
      stdout: "Connection successfully added\n",
      stderr: `sdwan-connections: creating a new store in ${dataDir}\n`,
    });
    expect(await run(["__complete", "aliases"], { dataDir })).toEqual({ code: 0, stdout: "lab\n", stderr: "" });
  });

  it("config shows the effective settings, never a secret", async () => {
    const secrets = {
      masterKey: Buffer.alloc(32, 9).toString("base64"),
      password: "admin-secret-pw",
      dbPassword: "db-secret-pw",
    };
    const env = {
      SDWAN_MASTER_KEY: secrets.masterKey,
      SDWAN_ADMIN_USER: "ops",
      SDWAN_ADMIN_PASSWORD: secrets.password,
      SDWAN_STORAGE: "postgres",
      SDWAN_DATABASE_URL: `postgres://sdwan:${secrets.dbPassword}@db.example.net:5432/sdwan?password=${secrets.dbPassword}`,
    };
    const table = await run(["config"], { tty: true, env, dataDir: join(parent, "data") });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Storage +PostgreSQL$/m);
    expect(table.stdout).toMatch(/^Database +postgres:\/\/sdwan@db\.example\.net:5432\/sdwan$/m);
    expect(table.stdout).toMatch(/^Master key +SDWAN_MASTER_KEY \(set\)$/m);
    expect(table.stdout).toMatch(/^Customers at most +100000 enterprises, 33554432 bytes of reply$/m);
    expect(table.stdout).toMatch(/^Trusted proxies +-$/m);
    const asJson = await run(["config"], { env: { ...env, SDWAN_TRUSTED_PROXIES: "10.42.0.0/16" } });
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      storage: "postgres",
      adminUser: "ops",
      orchestratorTimeoutMs: 10_000,
      customersBound: { enterprises: 100_000, replyBytes: 32 * 1024 * 1024 },
      trustedProxies: ["10.42.0.0/16"],
    });
    for (const secret of Object.values(secrets)) expect(table.stdout + asJson.stdout).not.toContain(secret);

    const byDefault = await run(["config", "-o", "json"], { env: { SDWAN_DATA_DIR: "" } });
    expect(JSON.parse(byDefault.stdout)).toMatchObject({
      storage: "lowdb",
      dataDir: join(process.cwd(), "data"),
      dataDirSource: "default: ./data in the current directory",
    });
  });

  it("config says where traces go, never the collector's headers", async () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example.net:4318",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-secret-1",
      OTEL_SERVICE_NAME: "sdwan-eu",
    };
    const table = await run(["config"], { tty: true, env, dataDir: join(parent, "data") });
    expect(table.stdout).toMatch(/^Traces +to https:\/\/collector\.example\.net:4318\/v1\/traces\s+as sdwan-eu$/m);
    const asJson = await run(["config"], { env });
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      traces: { endpoint: "https://collector.example.net:4318/v1/traces", serviceName: "sdwan-eu" },
    });
    expect(table.stdout + asJson.stdout).not.toContain("collector-secret-1");
    expect((await run(["config"], { tty: true, env: {}, dataDir: join(parent, "data") })).stdout).toMatch(
      /^Traces +off \(no OTEL_EXPORTER_OTLP_ENDPOINT\)$/m,
    );
  });
});

describe("tables for people, JSON and YAML for scripts", () => {
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

  it("lists as an aligned table on a terminal, headers in words; an empty list says so", async () => {
    expect((await run(["list"], { tty: true, dataDir })).stdout).toBe(
      [
        "Alias            Orchestrator URL",
        "lab              https://vco.example.net/",
        "production-east  https://vco2.example.net/",
        "",
      ].join("\n"),
    );
    for (const alias of ["lab", "production-east"]) expect((await run(["delete", alias], { dataDir })).code).toBe(0);
    expect(await run(["list"], { tty: true, dataDir })).toEqual({ code: 0, stdout: "No connections.\n", stderr: "" });
  });

  it("lists as JSON with --json or -o json, and whenever standard output is not a terminal; as YAML with -o yaml", async () => {
    const expected = [
      { alias: "lab", orchestratorUrl: "https://vco.example.net/" },
      { alias: "production-east", orchestratorUrl: "https://vco2.example.net/" },
    ];
    expect(JSON.parse((await run(["list", "--json"], { tty: true, dataDir })).stdout)).toEqual(expected);
    expect(JSON.parse((await run(["list", "-o", "json"], { tty: true, dataDir })).stdout)).toEqual(expected);
    expect(JSON.parse((await run(["list"], { tty: false, dataDir })).stdout)).toEqual(expected);
    expect((await run(["list", "-o", "yaml"], { dataDir })).stdout).toBe(
      "- alias: lab\n  orchestratorUrl: https://vco.example.net/\n- alias: production-east\n  orchestratorUrl: https://vco2.example.net/\n",
    );
    expect((await run(["list", "--output", "table"], { dataDir })).stdout).toMatch(/^Alias/);
  });

  it("gets one connection as stored, without asking any orchestrator", async () => {
    const shown = await run(["get", "LAB"], { tty: true, dataDir });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /^Alias +lab\nOrchestrator URL +https:\/\/vco\.example\.net\/\nVersion +1\nKey set at +\d{4}-\d\d-\d\dT[\d:.]+Z\nKey fingerprint +[\w-]{43}\nKey expires at +-\nKey days left +-\nKey expiry from +-\nKey renewal +off\n$/,
    );
    expect(JSON.parse((await run(["get", "lab"], { dataDir })).stdout)).toEqual({
      alias: "lab",
      orchestratorUrl: "https://vco.example.net/",
      version: 1,
      apiKeySetAt: expect.stringMatching(/^\d{4}-/),
      apiKeyFingerprint: expect.stringMatching(/^[\w-]{43}$/),
      apiKeyExpiresAt: null,
      apiKeyExpirySource: null,
      keyRenewal: "off",
    });
    expect((await run(["get", "ghost"], { dataDir })).code).toBe(3);
  });

  it("takes --key-renewal auto|off on add and update; any other value is refused naming the option, changing nothing", async () => {
    for (const argv of [
      ["add", "edge", "https://vco.example.net/", "--force", "--key-renewal", "sometimes"],
      ["update", "lab", "--key-renewal", "on", "--force"],
    ])
      expect(await run(argv, { stdin: "k", dataDir })).toEqual({
        code: 2,
        stdout: "",
        stderr: `sdwan-connections: --key-renewal: must be one of auto, off; see 'sdwan-connections ${argv[0] ?? ""} --help'\n`,
      });
    expect((await run(["get", "edge"], { dataDir })).code).toBe(3);
    expect(JSON.parse((await run(["get", "lab"], { dataDir })).stdout)).toMatchObject({ version: 1 });
    // A malformed option is a usage error, not an attempted write: nothing is audited (docs/interface.md).
    expect(JSON.parse((await run(["audit", "-o", "json"], { dataDir })).stdout)).toMatchObject({
      entries: [
        { action: "add", alias: "production-east", outcome: "succeeded" },
        { action: "add", alias: "lab", outcome: "succeeded" },
      ],
    });
    const added = await run(["add", "edge", "https://vco.example.net/", "--force", "--key-renewal", "off"], {
      stdin: "k",
      dataDir,
    });
    expect(added.code).toBe(0);
    for (const command of ["add", "update"])
      expect((await run([command, "--help"])).stdout).toContain("--key-renewal <auto|off>");
  });

  it("refuses an update with nothing to change, or with --key and --api-key-ref, in its own words and unaudited", async () => {
    for (const [argv, line] of [
      [["update", "lab"], "update: needs at least one of --url, --key, --key-renewal, --api-key-ref"],
      [
        ["update", "lab", "--key", "--api-key-ref", "env:SDWAN_APIKEY_LAB"],
        "--api-key-ref: cannot go with --key: a key is stored or kept elsewhere",
      ],
    ] as const)
      expect(await run(argv, { stdin: "k", dataDir })).toEqual({
        code: 2,
        stdout: "",
        stderr: `sdwan-connections: ${line}; see 'sdwan-connections update --help'\n`,
      });
    expect(JSON.parse((await run(["get", "lab"], { dataDir })).stdout)).toMatchObject({ version: 1 });
    expect(JSON.parse((await run(["audit", "-o", "json"], { dataDir })).stdout)).toMatchObject({
      entries: [
        { action: "add", alias: "production-east", outcome: "succeeded" },
        { action: "add", alias: "lab", outcome: "succeeded" },
      ],
    });
  });

  it("narrows a table to the terminal's width, never one asked for in a pipe or a file (-o table, -o wide)", async () => {
    const alias = "a-long-alias-for-a-table-that-a-script-reads-line-by-line";
    expect(
      (await run(["add", alias, "https://vco.example.net/portal/", "--force"], { stdin: "k", dataDir })).code,
    ).toBe(0);
    const piped = (await run(["list", "-o", "wide"], { dataDir })).stdout.split("\n");
    expect(piped.find((line) => line.startsWith(`${alias}  `))).toContain("https://vco.example.net/portal/");
    const drawn = (await run(["list", "-o", "wide"], { dataDir, tty: true, columns: 80 })).stdout.split("\n");
    expect(drawn.every((line) => line.length <= 80)).toBe(true);
    expect((await run(["delete", alias], { dataDir })).code).toBe(0);
  });

  it("validate: a long reason wraps inside its column; an orchestrator that cannot be asked exits 6", async () => {
    expect((await run(["add", "closed", "http://127.0.0.1:9/", "--force"], { stdin: "k", dataDir })).code).toBe(0);
    const result = await run(["validate", "closed", "--verbose"], {
      tty: true,
      columns: 60,
      dataDir,
      env: { SDWAN_ORCHESTRATOR_TIMEOUT_MS: "2000" },
    });
    expect(result.code).toBe(6);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines.every((line) => line.length <= 60)).toBe(true);
    expect(lines[2]).toMatch(/^Valid +no$/);
    expect(lines[3]).toMatch(/^Reason {12}\S/);
    expect(lines[4]).toMatch(/^ {18}\S/);
  });

  it("key-check exits 9 when the key differs, 0 when it matches", async () => {
    expect(await run(["key-check", "lab"], { stdin: "a-key\n", dataDir, tty: true })).toEqual({
      code: 0,
      stdout: "The key matches the stored one.\n",
      stderr: "",
    });
    expect(await run(["key-check", "lab"], { stdin: "another-key", dataDir })).toEqual({
      code: 9,
      stdout: '{\n  "matches": false\n}\n',
      stderr: "",
    });
    // The mismatch is audited as the one who ran the command, as every write is (SPEC §11: the actor is the principal).
    const audit = JSON.parse((await run(["audit", "-o", "json"], { dataDir })).stdout) as {
      entries: { actor: string; action: string }[];
    };
    expect(audit.entries.filter((entry) => entry.action === "key-check").map((entry) => entry.actor)).toEqual([
      `cli:${userInfo().username}`,
    ]);
  });

  it("speaks of arguments and options, not of the REST API's fields", async () => {
    expect(await run(["audit", "--limit", "0"], { dataDir })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^sdwan-connections: --limit: .*; see 'sdwan-connections audit --help'\n$/),
    });
    expect(
      await run(["add", "bad alias", "https://vco.example.net/", "--force"], { stdin: "k", dataDir }),
    ).toMatchObject({ code: 2, stderr: expect.stringMatching(/^sdwan-connections: <alias>: /) });
    expect(await run(["update", "lab", "--url", "ftp://x", "--force"], { dataDir })).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^sdwan-connections: --url: /),
    });
    for (const argv of [
      ["audit", "--limit", "0"],
      ["add", "bad alias", "x", "--force"],
    ])
      expect((await run(argv, { stdin: "k", dataDir })).stderr).not.toMatch(/query|body/);
  });

  it("keeps exit codes: 3 for a missing connection, 4 for a taken alias", async () => {
    expect(await run(["delete", "ghost"], { dataDir })).toMatchObject({
      code: 3,
      stderr: "sdwan-connections: No connection with alias 'ghost'.\n",
    });
    expect((await run(["add", "LAB", "https://vco.example.net/", "--force"], { stdin: "k", dataDir })).code).toBe(4);
  });
});
