import { execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { copyFile, link, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { exportConfiguration, keyVariable, parseExportedForm, readConfiguration } from "./configuration-file.js";
import { loadYaml } from "./yaml.js";

/** runCli in this process on `dataDir`, `stdin` as the key when one is read. */
const runOn = async (dataDir: string, argv: readonly string[], env: Record<string, string>, stdin: string) => {
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

// Issue 19, item 8: a configuration file comes from anyone, and its references must reach keys only.
describe("configuration files cannot reach the service's own secrets", { timeout: 30_000 }, () => {
  let root: string;
  let dataDir: string;
  const masterKey = Buffer.alloc(32, 5).toString("base64");

  const run = (argv: readonly string[], env: Record<string, string> = {}, stdin = "") =>
    runOn(dataDir, argv, env, stdin);
  const configuration = async (apiKeys: readonly string[]) => {
    const path = join(root, `sdwan-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(
      path,
      `connections:\n${apiKeys.map((apiKey, index) => `  - alias: c${index}\n    orchestratorUrl: https://vco.example.net/\n    apiKey: ${apiKey}\n`).join("")}`,
    );
    return path;
  };
  const refusal = async (apiKey: string, env: Record<string, string> = {}) => {
    const result = await run(["apply", "-f", await configuration([apiKey]), "--force"], {
      SDWAN_APIKEY_C0: "a-key",
      SDWAN_APIKEY_DIR: root,
      ...env,
    });
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
    expect(
      (
        await run(["apply", "-f", await configuration(["env:SDWAN_APIKEY_C0"]), "--force"], {
          SDWAN_APIKEY_C0: "a-key",
        })
      ).code,
    ).toBe(0);
  });

  it("file: reads only a small regular file outside the data directory", async () => {
    execFileSync("mkfifo", [join(root, "fifo")]);
    await writeFile(join(root, "big.key"), "k".repeat(16 * 1024 + 1));
    await writeFile(join(dataDir, "copied.key"), "a-key");
    await symlink(join(dataDir, "master.key"), join(root, "innocent.key"));
    // The store and its master key, made by a first apply.
    expect(
      (
        await run(["apply", "-f", await configuration(["env:SDWAN_APIKEY_C0"]), "--force"], {
          SDWAN_APIKEY_C0: "a-key",
        })
      ).code,
    ).toBe(0);
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
    for (const [reference, problem] of cases)
      expect(await refusal(reference)).toContain(`connections.0.apiKey: ${reference}: ${problem}`);
  });

  it("--file must be a small regular file", async () => {
    execFileSync("mkfifo", [join(root, "fifo")]);
    for (const [file, problem] of [
      [join(root, "fifo"), "is not a regular file"],
      ["/dev/urandom", "is not a regular file"],
      [root, "is not a regular file"],
      [join(root, "missing.yaml"), "cannot be read (ENOENT)"],
    ] as const) {
      expect(await run(["apply", "-f", file]), file).toMatchObject({
        code: 2,
        stdout: "",
        stderr: expect.stringMatching(
          new RegExp(
            `(^|\n)sdwan-connections: --file: ${problem.replace(/[()]/g, "\\$&")}; see 'sdwan-connections apply --help'\n$`,
          ),
        ),
      });
    }
  });

  it("two connections may not share a reference", async () => {
    const stderr = await refusal(
      "env:SDWAN_APIKEY_C0\n  - alias: other\n    orchestratorUrl: https://vco.example.net/\n    apiKey: env:SDWAN_APIKEY_C0",
    );
    expect(stderr).toContain(
      "connections.1.apiKey: is the reference of connections.0 too: each connection has its own key",
    );
  });

  it("export gives distinct aliases distinct variables, and apply reads its own export back", async () => {
    const aliases = ["a.b", "a-b", "a_b", "A_2EB", "ab", "a.b.c"];
    expect(new Set(aliases.map(keyVariable)).size).toBe(aliases.length);
    expect(keyVariable("a.b")).toBe("SDWAN_APIKEY_A_2EB");
    for (const alias of aliases)
      expect((await run(["add", alias, "https://vco.example.net/", "--force"], {}, "old-key")).code).toBe(0);
    const path = join(root, "exported.yaml");
    await writeFile(path, (await run(["export"])).stdout);
    const env = Object.fromEntries(aliases.map((alias) => [keyVariable(alias), `key-of-${alias}`]));
    const applied = JSON.parse((await run(["apply", "-f", path, "--force"], env)).stdout) as {
      results: { alias: string; outcome: string }[];
    };
    expect(applied.results.map(({ outcome }) => outcome)).toEqual(aliases.map(() => "applied"));
    // Each connection got its own key, not another's.
    for (const alias of aliases)
      expect(await run(["key-check", alias], {}, `key-of-${alias}`), alias).toMatchObject({ code: 0 });
  });

  it("apply passes apiKeyRef on (the store keeps it, reading the key when used); export writes the reference, never a key", async () => {
    const keyDir = join(root, "keys");
    await mkdir(keyDir);
    await writeFile(join(keyDir, "kept"), "key-kept-elsewhere\n");
    const env = { SDWAN_APIKEY_DIR: keyDir };
    const path = join(root, "kept.yaml");
    await writeFile(
      path,
      "connections:\n  - alias: kept\n    orchestratorUrl: https://vco.example.net/\n    apiKeyRef: file:kept\n",
    );
    expect((await run(["apply", "-f", path, "--force"], env)).code).toBe(0);
    expect(await run(["key-check", "kept"], env, "key-kept-elsewhere")).toMatchObject({ code: 0 });
    const exported = (await run(["export"], env)).stdout;
    expect(exported).toContain("apiKeyRef: file:kept");
    expect(exported).not.toContain("key-kept-elsewhere");
    expect(JSON.parse((await run(["apply", "-f", path, "--force"], env)).stdout)).toMatchObject({
      results: [{ alias: "kept", outcome: "unchanged" }],
    });
    const both = join(root, "both.yaml");
    await writeFile(
      both,
      "connections:\n  - alias: both\n    orchestratorUrl: https://vco.example.net/\n    apiKey: env:SDWAN_APIKEY_X\n    apiKeyRef: file:kept\n",
    );
    expect((await run(["apply", "-f", both, "--force"], { ...env, SDWAN_APIKEY_X: "x" })).stderr).toContain(
      "apiKeyRef",
    );
    for (const file of await readdir(dataDir, { withFileTypes: true }))
      if (file.isFile())
        expect((await readFile(join(dataDir, file.name))).includes("key-kept-elsewhere"), file.name).toBe(false);
  });
});

// Issue 27, item 3: a file: reference reached any readable file (a copy or hard link of the master key,
// another data directory's master key, ~/.git-credentials), and sent it to the orchestrator as the key.
// Issue 30: `export`, then `apply --dry-run`, failed until every SDWAN_APIKEY_… variable was set.
describe("an export planned back without its key variables", { timeout: 30_000 }, () => {
  let dataDir: string;
  const run = (argv: readonly string[], env: Record<string, string> = {}, stdin = "") =>
    runOn(dataDir, argv, env, stdin);
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "sdwan-cli-roundtrip-"));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it("is unchanged, its keys not checked; a changed URL or a new entry still needs its key; --require-keys needs every key", async () => {
    for (const alias of ["lab", "edge"])
      expect((await run(["add", alias, "https://vco.example.net/", "--force"], {}, `key-of-${alias}`)).code).toBe(0);
    // The configuration file itself may be anywhere (only key references are fenced).
    const path = join(dataDir, "sdwan.yaml");
    await writeFile(path, (await run(["export"])).stdout);
    const planned = await run(["apply", "-f", path, "--dry-run", "-o", "table"]);
    expect(planned).toEqual({
      code: 0,
      stdout:
        "Plan: 0 to create, 0 to update, 0 to delete, 2 unchanged\n  = unchanged edge, key from env:SDWAN_APIKEY_EDGE (not set: key not checked)\n  = unchanged lab, key from env:SDWAN_APIKEY_LAB (not set: key not checked)\n",
      stderr: "",
    });
    expect(JSON.parse((await run(["apply", "-f", path])).stdout)).toMatchObject({
      results: [{ outcome: "unchanged" }, { outcome: "unchanged" }],
    });
    const strict = await run(["apply", "-f", path, "--dry-run", "--require-keys"]);
    expect(strict).toMatchObject({ code: 2, stdout: "" });
    expect(strict.stderr).toContain(
      "connections.0.apiKey: env:SDWAN_APIKEY_EDGE: the variable is not set; connections.1.apiKey: env:SDWAN_APIKEY_LAB: the variable is not set",
    );
    await writeFile(
      path,
      (await readFile(path, "utf8")).replace("https://vco.example.net/", "https://moved.example.net/") +
        "  - alias: new\n    orchestratorUrl: https://vco.example.net/\n    apiKey: env:SDWAN_APIKEY_NEW\n",
    );
    const needed = await run(["apply", "-f", path, "--dry-run"]);
    expect(needed).toMatchObject({ code: 2, stdout: "" });
    expect(needed.stderr).toContain(
      "connections.0.apiKey: env:SDWAN_APIKEY_EDGE gives no key, and one is needed to create this connection or change its URL",
    );
    expect(needed.stderr).toContain("connections.2.apiKey: env:SDWAN_APIKEY_NEW gives no key");
    expect(await run(["key-check", "lab"], {}, "key-of-lab")).toMatchObject({ code: 0 });
  });
});

describe("file: references read only SDWAN_APIKEY_DIR, and no key is a master key", { timeout: 60_000 }, () => {
  let root: string;
  let dataDir: string;
  let keyDir: string;
  const currentKey = Buffer.alloc(32, 5).toString("base64");
  const previousKey = Buffer.alloc(32, 6).toString("base64");
  // A fake orchestrator: every token it is sent.
  const tokens: string[] = [];
  const orchestrator = createServer((request, response) => {
    tokens.push(`${request.headers.authorization ?? ""}${request.headers["x-api-key"] ?? ""}${request.url ?? ""}`);
    response.writeHead(401).end();
  });
  let orchestratorUrl: string;

  const run = (argv: readonly string[], env: Record<string, string> = {}, stdin = "") =>
    runOn(dataDir, argv, { SDWAN_APIKEY_DIR: keyDir, SDWAN_ORCHESTRATOR_TIMEOUT_MS: "2000", ...env }, stdin);
  const apply = async (apiKey: string, env: Record<string, string> = {}, extra: readonly string[] = []) => {
    const path = join(root, `sdwan-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(
      path,
      `connections:\n  - alias: lab\n    orchestratorUrl: ${orchestratorUrl}\n    apiKey: ${apiKey}\n`,
    );
    return run(["apply", "-f", path, ...extra], env);
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "sdwan-cli-keydir-"));
    dataDir = join(root, "data");
    keyDir = join(root, "keys");
    await mkdir(keyDir);
    await new Promise<void>((resolve) => orchestrator.listen(0, "127.0.0.1", resolve));
    const address = orchestrator.address();
    orchestratorUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/`;
    tokens.length = 0;
  });
  afterEach(async () => {
    await new Promise((resolve) => orchestrator.close(resolve));
    await rm(root, { recursive: true, force: true });
  });

  it("refuses file: references until SDWAN_APIKEY_DIR is set, saying to set it", async () => {
    await writeFile(join(keyDir, "lab.key"), "a-key\n");
    const refused = await apply(`file:${join(keyDir, "lab.key")}`, { SDWAN_APIKEY_DIR: "" });
    expect(refused).toMatchObject({ code: 2, stdout: "" });
    expect(refused.stderr).toContain(
      "file: references are refused until SDWAN_APIKEY_DIR names the one directory key files are read from",
    );
    expect(tokens).toEqual([]);
  });

  it("refuses what is outside the directory, its links resolved, and every copy or link of a master key; nothing is sent", async () => {
    // The store and its generated master key, made by a first apply.
    await writeFile(join(keyDir, "first.key"), "first-key\n");
    expect((await apply("file:first.key", {}, ["--force"])).code).toBe(0);
    const masterKey = await readFile(join(dataDir, "master.key"), "utf8");
    await link(join(dataDir, "master.key"), join(keyDir, "linked.key"));
    await copyFile(join(dataDir, "master.key"), join(keyDir, "copied.key"));
    await writeFile(join(keyDir, "hex.key"), Buffer.from(masterKey.trim(), "base64").toString("hex"));
    // Another data directory's (the running service's) master key, and a user's credentials.
    await mkdir(join(root, "service-data"));
    await writeFile(join(root, "service-data", "master.key"), `${currentKey}\n`);
    await mkdir(join(root, "home"));
    await writeFile(join(root, "home", ".git-credentials"), "https://user:token@git.example.net\n");
    await writeFile(join(root, "home", ".pgpass"), "db:5432:*:user:password\n");
    await symlink(join(root, "home", ".git-credentials"), join(keyDir, "innocent.key"));
    const cases: [string, string][] = [
      ["file:linked.key", "is the data directory's master key (a hard link to it)"],
      ["file:copied.key", "is a master key of this deployment, never an apiKey"],
      ["file:hex.key", "is a master key of this deployment, never an apiKey"],
      ["file:innocent.key", `is outside SDWAN_APIKEY_DIR (${keyDir})`],
      ["file:../home/.pgpass", `is outside SDWAN_APIKEY_DIR (${keyDir})`],
      [`file:${join(root, "home", ".git-credentials")}`, `is outside SDWAN_APIKEY_DIR (${keyDir})`],
      [`file:${join(root, "service-data", "master.key")}`, `is outside SDWAN_APIKEY_DIR (${keyDir})`],
      [`file:${join(dataDir, "master.key")}`, "is in the data directory (SDWAN_DATA_DIR)"],
    ];
    for (const [reference, problem] of cases) {
      const refused = await apply(reference);
      expect(refused.code, reference).toBe(2);
      expect(refused.stderr).toContain(`connections.0.apiKey: ${reference}: ${problem}`);
      expect(refused.stderr + refused.stdout).not.toContain(masterKey.trim());
    }
    expect(tokens).toEqual([]);
  });

  it("refuses a key that is SDWAN_MASTER_KEY or one of SDWAN_MASTER_KEY_PREVIOUS, from a file or a variable", async () => {
    const env = { SDWAN_MASTER_KEY: currentKey, SDWAN_MASTER_KEY_PREVIOUS: previousKey };
    await writeFile(join(keyDir, "current.key"), `${currentKey}\n`);
    await writeFile(join(keyDir, "previous.key"), previousKey);
    for (const [reference, extra] of [
      ["file:current.key", {}],
      ["file:previous.key", {}],
      ["env:SDWAN_APIKEY_LAB", { SDWAN_APIKEY_LAB: previousKey }],
    ] as const) {
      const refused = await apply(reference, { ...env, ...extra });
      expect(refused.code, reference).toBe(2);
      expect(refused.stderr).toContain(
        `connections.0.apiKey: ${reference}: is a master key of this deployment, never an apiKey`,
      );
    }
    expect(tokens).toEqual([]);
  });

  it("reads a key file named in the directory (links inside it too); the plan says where each key comes from, never the key", async () => {
    await writeFile(join(keyDir, "lab.key"), "the-lab-key\n");
    await mkdir(join(keyDir, "team"));
    await symlink(join(keyDir, "lab.key"), join(keyDir, "team", "lab.key"));
    const path = join(root, "two.yaml");
    await writeFile(
      path,
      `connections:\n  - alias: lab\n    orchestratorUrl: ${orchestratorUrl}\n    apiKey: file:team/lab.key\n  - alias: edge\n    orchestratorUrl: ${orchestratorUrl}\n    apiKey: env:SDWAN_APIKEY_EDGE\n`,
    );
    const env = { SDWAN_APIKEY_EDGE: "the-edge-key" };
    const dryRun = await run(["apply", "-f", path, "--dry-run", "-o", "table"], env);
    expect(dryRun).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("+ create    lab, key from file:team/lab.key\n"),
    });
    expect(dryRun.stdout).toContain("+ create    edge, key from env:SDWAN_APIKEY_EDGE\n");
    const applied = await run(["apply", "-f", path, "--force"], env);
    expect(applied.code).toBe(0);
    expect((JSON.parse(applied.stdout) as { plan: unknown[] }).plan).toEqual([
      { action: "create", alias: "lab", fields: ["orchestratorUrl", "apiKey"], keySource: "file:team/lab.key" },
      { action: "create", alias: "edge", fields: ["orchestratorUrl", "apiKey"], keySource: "env:SDWAN_APIKEY_EDGE" },
    ]);
    for (const output of [dryRun, applied]) expect(output.stdout + output.stderr).not.toMatch(/the-(lab|edge)-key/);
    expect(await run(["key-check", "lab"], {}, "the-lab-key")).toMatchObject({ code: 0 });
  });
});

// Issue 27: yaml's Node build read process.env twice a token, and each read scans the whole environment:
// with 100,000 SDWAN_APIKEY_… variables, applying 100,000 connections took minutes.
describe("reading a configuration file", () => {
  it("reads the environment it is given, never process.env, whatever the file's size", async () => {
    const root = await mkdtemp(join(tmpdir(), "sdwan-cli-env-"));
    const live = process.env;
    const read: (string | symbol)[] = [];
    await loadYaml();
    try {
      const path = join(root, "many.yaml");
      await writeFile(
        path,
        // A comment first: yaml reads it (the form `export` writes is read without yaml).
        `# many\nconnections:\n${Array.from({ length: 1_000 }, (_, i) => `  - alias: c${i}\n    orchestratorUrl: https://vco.example.net/\n    apiKey: env:SDWAN_APIKEY_C${i}\n`).join("")}`,
      );
      const env = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`SDWAN_APIKEY_C${i}`, `key-${i}`]));
      process.env = new Proxy(live, { get: (target, name) => (read.push(name), Reflect.get(target, name)) });
      const connections = await readConfiguration(path, {
        env,
        keyDir: undefined,
        dataDir: join(root, "data"),
        masterKeyFile: join(root, "data", "master.key"),
        masterKeys: [],
      })();
      process.env = live;
      expect(connections).toMatchObject({ right: { connections: { length: 1_000 } } });
      expect(read).toEqual([]);
    } finally {
      process.env = live;
      await rm(root, { recursive: true, force: true });
    }
  });

  // Bug: a JSON file naming a field twice was read as its last value (JSON.parse), where the same file as YAML is refused.
  it("refuses a file that names a field twice, JSON or YAML, saying where", async () => {
    const root = await mkdtemp(join(tmpdir(), "sdwan-cli-twice-"));
    try {
      const texts = {
        "twice.json": `{"connections": [\n {"alias": "a", "orchestratorUrl": "https://vco.example.net/",\n  "alias": "b"}]}\n`,
        "twice.yaml": "connections:\n  - alias: a\n    orchestratorUrl: https://vco.example.net/\n    alias: b\n",
      };
      for (const [name, text] of Object.entries(texts)) {
        const path = join(root, name);
        await writeFile(path, text);
        const read = await readConfiguration(path, {
          env: {},
          keyDir: undefined,
          dataDir: join(root, "data"),
          masterKeyFile: join(root, "data", "master.key"),
          masterKeys: [],
        })();
        expect(read).toMatchObject({
          left: {
            errors: [{ field: "--file", message: expect.stringMatching(/^names a field twice near line [34]$/) }],
          },
        });
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  // Issue 40: yaml took 4-13 s for 100,000 connections as `export` writes them; that form is read line by line.
  it("reads the form export writes without yaml, answering what yaml answers, and leaves every other text to yaml", async () => {
    const YAML = await loadYaml();
    const exported = await exportConfiguration(
      [
        { alias: "lab.1", orchestratorUrl: "https://vco.example.net/", keyRenewal: "auto" },
        { alias: "edge", orchestratorUrl: "https://vco2.example.net:8443/a?b=c&d=%20" },
        { alias: "1e5", orchestratorUrl: "https://vco.example.net/" },
      ] as never,
      [{ id: "g", subject: "group:emea", pattern: "emea-*", verb: "use" }] as never,
      "yaml",
    );
    // Numeric-looking aliases are quoted by yaml: that file is yaml's to read.
    expect(parseExportedForm(exported)).toBeUndefined();
    const plain = exported.replace(/.*alias: "1e5"[^]*?(?=grants:)/, "");
    expect(parseExportedForm(plain)).toEqual(YAML.parse(plain));
    expect(parseExportedForm(plain)?.["grants"]).toEqual([{ subject: "group:emea", pattern: "emea-*", verb: "use" }]);
    // Texts of lines of the form, some of lines near it: either not read here, or read as yaml reads them.
    const values = ["lab", "https://v.example/", "env:SDWAN_APIKEY_A_2EB", "emea-*", "a:b", "x@y", "a,b", "a|b"];
    const tricky = [
      ...`null True FALSE 1e5 0x1F .inf a: a#b 'q' "q" ~ -x [a] {a} *x &x !x @x %x`.split(" "),
      "a: b",
      "a #b",
      "a\tb",
      "",
    ];
    const keys = ["alias", "orchestratorUrl", "apiKey", "keyRenewal", "apiKeyRef", "subject", "pattern", "verb", "a_1"];
    const itemLines = (key: string, value: string) => [`  - ${key}: ${value}`, `    ${key}: ${value}`];
    const tops = ["connections", "grants", "x"].flatMap((name) => [`${name}:`, `${name}: []`]);
    const items = keys.flatMap((key) => values.flatMap((value) => itemLines(key, value)));
    const bad = [
      ...["toString", "Null"].flatMap((name) => [`${name}:`, `${name}: []`]),
      ...["null", "True", "toString"].flatMap((key) => itemLines(key, "lab")),
      ...tricky.flatMap((value) => itemLines("alias", value)),
      ..."\n# comment\n   - alias: x\n  -  alias: x\n      more\n- alias: x\ngrants: # c\n  - alias: x\r".split("\n"),
    ];
    let seed = 40;
    const random = (below: number) => (
      (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0),
      Math.floor((seed / 2 ** 32) * below)
    );
    const pick = (from: readonly string[]) => from[random(from.length)] as string;
    let read = 0;
    for (let trial = 0; trial < 5_000; trial += 1) {
      const picked = Array.from({ length: 1 + random(8) }, () =>
        pick([bad, tops, items, items, items, items, items, items][random(8)] as string[]),
      );
      const text = `${["connections:", `  - alias: a${trial}`, ...picked].join("\n")}${random(16) === 0 ? "" : "\n"}`;
      const fast = parseExportedForm(text);
      if (fast === undefined) continue;
      read += 1;
      expect(fast, text).toEqual(YAML.parse(text));
    }
    expect(read).toBeGreaterThan(500);
  });
});
