import { spawn } from "node:child_process";
import { createServer, type Socket } from "node:net";
import { once } from "node:events";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadSampleDataset, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import { runCli } from "../src/cli.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const PARTNER_KEY = "sample-partner-key-1";
const BASE = "/rest/plugin/sdwan";
const ADMIN = { name: "admin", password: "admin-password-1" };

const makeDataDir = () => mkdtemp(join(tmpdir(), "sdwan-cli-"));

/**
 * The two ways the CLI works, run by the same tests with the same expected outputs: on a local store (the
 * data directory opened by the CLI itself), or in a context whose service is a running REST service over
 * that same data directory, reached over HTTP on 127.0.0.1 (what the CLI's configuration file says, in a
 * configuration directory of its own: XDG_CONFIG_HOME).
 */
const MODES = ["local store", "service"] as const;
type Mode = (typeof MODES)[number];

/** The environment that puts the CLI in `mode`: a context for the service at `serviceUrl`, signed in as the admin (password from a file). */
const modeEnvironment = async (
  mode: Mode,
  serviceUrl: () => string,
): Promise<{ readonly env: () => Record<string, string>; readonly cleanUp: () => Promise<void> }> => {
  if (mode === "local store") return { env: () => ({}), cleanUp: async () => undefined };
  const configHome = await mkdtemp(join(tmpdir(), "sdwan-cli-config-"));
  const passwordFile = join(configHome, "admin.password");
  await writeFile(passwordFile, `${ADMIN.password}\n`);
  let written = false;
  return {
    env: () => {
      if (!written) {
        mkdirSync(join(configHome, "sdwan-connections"));
        writeFileSync(
          join(configHome, "sdwan-connections", "config.yaml"),
          `current-context: svc\ncontexts:\n  - name: svc\n    server: ${serviceUrl()}\n    user: ${ADMIN.name}\n    password-file: ${passwordFile}\n`,
        );
        written = true;
      }
      return { XDG_CONFIG_HOME: configHome };
    },
    cleanUp: () => rm(configHome, { recursive: true, force: true }),
  };
};

/**
 * `src/main.ts` in a child process (sources through tsx), `input` on its standard input. Only where the
 * process itself is under test: what the real binary prints (its logs included) and exits with, signals.
 */
let inMode: () => Record<string, string> = () => ({});

const spawnBinary = (
  dataDir: string,
  args: readonly string[],
  input = "",
  env: Record<string, string> = {},
  cwd = PACKAGE_DIR,
) => {
  // tsx by its path: the process may run anywhere (`cwd`), where `--import tsx` would not find it.
  const child = spawn(
    process.execPath,
    [
      "--conditions=sdwan-source",
      "--import",
      pathToFileURL(join(PACKAGE_DIR, "node_modules/tsx/dist/loader.mjs")).href,
      join(PACKAGE_DIR, "src/main.ts"),
      ...args,
    ],
    {
      cwd,
      env: { PATH: process.env["PATH"] ?? "", SDWAN_DATA_DIR: dataDir, SDWAN_LOG_LEVEL: "warn", ...inMode(), ...env },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  return {
    stdout: () => stdout,
    // Once its output is all read.
    exited: once(child, "close").then(([code]) => ({ code: code as number, stdout, stderr })),
    kill: () => child.kill("SIGKILL"),
    interrupt: () => child.kill("SIGINT"),
  };
};
const binary = (...given: Parameters<typeof spawnBinary>) => spawnBinary(...given).exited;

/**
 * The same command run in this process through the CliIo seam main.ts fills in: standard input is
 * not a terminal, so the key is all of `input` without its last line break, as the binary reads it.
 * Starting a process per command (a second each) would add nothing the binary's own tests don't cover.
 */
const cli = async (dataDir: string, args: readonly string[], input = "", env: Record<string, string> = {}) => {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runCli(args, {
    stdout: { isTTY: false, write: (text: string) => stdout.push(text) },
    stderr: { isTTY: false, write: (text: string) => stderr.push(text) },
    readSecret: async () => input.replace(/\r?\n$/, ""),
    env: { SDWAN_DATA_DIR: dataDir, SDWAN_LOG_LEVEL: "warn", ...inMode(), ...env },
  });
  return { code, stdout: stdout.join(""), stderr: stderr.join("") };
};

/** A command that runs until stopped (`events --follow`), as `cli` runs one: what it printed so far, and its stop (Ctrl-C's exit code). */
const following = (dataDir: string, args: readonly string[]) => {
  const stdout: string[] = [];
  let stop: ((exitCode: number) => void) | undefined;
  const exited = runCli(args, {
    stdout: { isTTY: false, write: (text: string) => stdout.push(text) },
    stderr: { isTTY: false, write: () => undefined },
    readSecret: async () => undefined,
    env: { SDWAN_DATA_DIR: dataDir, SDWAN_LOG_LEVEL: "warn", ...inMode() },
    onStop: (given) => (stop = given),
  });
  const printed = () => stdout.join("");
  return {
    printed,
    waitFor: async (text: string) => {
      for (let i = 0; i < 200 && !printed().includes(text); i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      return printed();
    },
    stop: (exitCode: number) => {
      stop?.(exitCode);
      return exited;
    },
  };
};

// The CLI and the service (another process) run at once on one data directory: each sees the other's writes.
// Through the service, the service audits the CLI's writes as the user the context signs in as.
describe.each(MODES)("the CLI beside the running service, on a %s", { timeout: 120_000 }, (mode) => {
  let dataDir: string;
  let service: ServiceProcess;
  let simulator: Awaited<ReturnType<typeof startOrchestratorSimulator>>;
  let modeEnv: Awaited<ReturnType<typeof modeEnvironment>>;
  let keyDir: string;
  const cliActor = mode === "service" ? ADMIN.name : "cli";

  beforeAll(async () => {
    dataDir = await makeDataDir();
    keyDir = await mkdtemp(join(tmpdir(), "sdwan-cli-keys-"));
    simulator = await startOrchestratorSimulator({ data: await loadSampleDataset(), host: "127.0.0.1", port: 0 });
    service = await startServiceProcess({
      SDWAN_DATA_DIR: dataDir,
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_APIKEY_DIR: keyDir,
    });
    modeEnv = await modeEnvironment(mode, () => service.url);
    inMode = modeEnv.env;
  });

  afterAll(async () => {
    inMode = () => ({});
    await service?.stop();
    await simulator?.stop();
    await modeEnv?.cleanUp();
    await rm(dataDir, { recursive: true, force: true });
    await rm(keyDir, { recursive: true, force: true });
  });

  it("adds with the key on standard input; the service lists it at once", async () => {
    const added = await cli(dataDir, ["add", "Lab", simulator.url], `${PARTNER_KEY}\n`);
    expect(added).toMatchObject({ code: 0, stdout: "Connection successfully added\n" });
    const listed = await service.call("GET", `${BASE}/connections`);
    expect(listed.json()).toEqual([{ alias: "Lab", orchestratorUrl: simulator.url }]);
  });

  it("lists, validates and lists customers, as JSON", async () => {
    await service.call("POST", `${BASE}/connections`, {
      body: { alias: "from-http", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
    });
    const list = await cli(dataDir, ["list"]);
    expect(JSON.parse(list.stdout)).toEqual([
      { alias: "from-http", orchestratorUrl: simulator.url },
      { alias: "Lab", orchestratorUrl: simulator.url },
    ]);
    expect(JSON.parse((await cli(dataDir, ["validate", "lab", "--verbose"])).stdout)).toEqual({
      alias: "Lab",
      orchestratorUrl: simulator.url,
      valid: true,
      type: "partner",
      version: 1,
      apiKeySetAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      apiKeyFingerprint: expect.stringMatching(/^[\w-]{43}$/),
      // SPEC §10: null when the key's expiry is not known.
      apiKeyExpiresAt: null,
      apiKeyExpirySource: null,
      keyRenewal: "off",
    });
    // As stored, key expiry included: what the service answers, in both modes.
    expect(JSON.parse((await cli(dataDir, ["get", "lab"])).stdout)).toEqual(
      (await service.call("GET", `${BASE}/connections/lab?stored=true`)).json(),
    );
    const customers = JSON.parse((await cli(dataDir, ["customers", "lab"])).stdout) as unknown[];
    expect(customers).toHaveLength(simulator.data.partners[0]?.enterprises.length ?? -1);
  });

  it("update --dry-run validates the changed connection and stores nothing", async () => {
    expect(await cli(dataDir, ["update", "lab", "--url", simulator.url.replace(/\/$/, ""), "--dry-run"])).toMatchObject(
      { code: 0, stdout: "Dry run successful\n" },
    );
    expect((await service.call("GET", `${BASE}/connections/lab`)).headers.get("etag")).toBe('"1"');
  });

  it("updates and deletes; the service follows; --if-match writes only at that version", async () => {
    expect(
      await cli(dataDir, ["update", "lab", "--url", `${simulator.url}moved/`, "--force", "--if-match", "2"]),
    ).toMatchObject({
      code: 4,
      stderr: expect.stringContaining("at version 1"),
    });
    expect(
      (await cli(dataDir, ["update", "lab", "--url", `${simulator.url}moved/`, "--force", "--if-match", "one"])).code,
    ).toBe(2);
    expect(
      (await cli(dataDir, ["update", "lab", "--url", `${simulator.url}moved/`, "--force", "--if-match", "1"])).code,
    ).toBe(0);
    // Versions are the store's, never repeated: from-http took 2, so the update gives lab 3.
    expect((await service.call("GET", `${BASE}/connections/lab`)).headers.get("etag")).toBe('"3"');
    expect((await cli(dataDir, ["delete", "lab", "--if-match", "1"])).code).toBe(4);
    expect((await service.call("GET", `${BASE}/connections`)).json()).toContainEqual({
      alias: "Lab",
      orchestratorUrl: `${simulator.url}moved/`,
    });
    expect(await cli(dataDir, ["delete", "LAB"])).toMatchObject({
      code: 0,
      stdout: "Connection successfully deleted\n",
    });
    expect((await service.call("GET", `${BASE}/connections/lab`)).status).toBe(404);
  });

  it("checks a stored key against the one on standard input, showing neither", async () => {
    await service.call("POST", `${BASE}/connections`, {
      body: { alias: "checked", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
    });
    const matching = await cli(dataDir, ["key-check", "checked"], `${PARTNER_KEY}\n`);
    expect(matching).toMatchObject({ code: 0, stdout: '{\n  "matches": true\n}\n' });
    const differing = await cli(dataDir, ["key-check", "checked"], "another-key");
    expect(differing).toMatchObject({ code: 9, stdout: '{\n  "matches": false\n}\n' });
    expect((await cli(dataDir, ["key-check", "ghost"], PARTNER_KEY)).code).toBe(3);
  });

  it("tells failures apart by exit code, one line on stderr", async () => {
    // The real binary's exit code and its one line, flushed before it exits.
    expect(await binary(dataDir, ["delete", "ghost"])).toMatchObject({
      code: 3,
      stderr: "sdwan-connections: No connection with alias 'ghost'.\n",
    });
    expect((await cli(dataDir, ["add", "from-http", simulator.url], PARTNER_KEY)).code).toBe(4);
    const refused = await cli(dataDir, ["add", "refused", simulator.url], "not-a-known-key");
    expect(refused.code).toBe(5);
    expect((await cli(dataDir, ["add", "bad alias", simulator.url], PARTNER_KEY)).code).toBe(2);
    expect((await cli(dataDir, ["frobnicate"])).code).toBe(2);
  });

  // Issue 36: a bad bearer token was answered "Valid HTTP Basic credentials are required." and sent to `--help`.
  // Through a service only: a token is a context's, and the local-store mode has no service to refuse it.
  it.runIf(mode === "service")(
    "a context whose token the service refuses is told so in the bearer scheme's words, with no --help hint",
    async () => {
      const configHome = await mkdtemp(join(tmpdir(), "sdwan-cli-config-"));
      try {
        await writeFile(join(configHome, "bad.token"), "not-a-service-token\n");
        mkdirSync(join(configHome, "sdwan-connections"));
        writeFileSync(
          join(configHome, "sdwan-connections", "config.yaml"),
          `current-context: bad\ncontexts:\n  - name: bad\n    server: ${service.url}\n    token-file: ${join(configHome, "bad.token")}\n`,
        );
        const refused = await cli(dataDir, ["list"], "", { XDG_CONFIG_HOME: configHome });
        expect(refused.code).toBe(2);
        expect(refused.stderr).toBe(
          "sdwan-connections: context 'bad': the service refused the credentials (The bearer token was refused: it is not a service token (sdw_…), and no OpenID provider is configured.)\n",
        );
      } finally {
        await rm(configHome, { recursive: true, force: true });
      }
    },
  );

  it("validate exits 0 for a valid key, 5 for a refused one, 6 when the orchestrator cannot be asked", async () => {
    expect((await cli(dataDir, ["add", "stale-key", simulator.url, "--force"], "not-a-known-key")).code).toBe(0);
    expect((await cli(dataDir, ["add", "nobody-home", "http://127.0.0.1:9/", "--force"], PARTNER_KEY)).code).toBe(0);
    expect((await cli(dataDir, ["validate", "from-http"])).code).toBe(0);
    expect(await cli(dataDir, ["validate", "stale-key"])).toMatchObject({
      code: 5,
      stdout: expect.stringContaining('"valid": false'),
    });
    expect((await cli(dataDir, ["validate", "nobody-home"], "", { SDWAN_ORCHESTRATOR_TIMEOUT_MS: "2000" })).code).toBe(
      6,
    );
    for (const alias of ["stale-key", "nobody-home"]) expect((await cli(dataDir, ["delete", alias])).code).toBe(0);
  });

  // Issue 30: "The orchestrator did not accept connection 'x': Could not connect…", pino's JSON lines on the terminal, `Valid no` without a reason.
  it("never calls an orchestrator that cannot be asked a refusal, prints no log lines by default, and a table says why a key is not valid", async () => {
    const unreachable = await binary(dataDir, ["add", "nobody-home-2", "http://127.0.0.1:9/"], PARTNER_KEY, {
      SDWAN_LOG_LEVEL: "",
    });
    expect(unreachable.code).toBe(6);
    expect(unreachable.stdout).toBe("");
    expect(unreachable.stderr).toMatch(
      /^sdwan-connections: The orchestrator could not be asked about connection 'nobody-home-2', so nothing was changed: Could not connect to the orchestrator[^\n]*\n$/,
    );
    expect(unreachable.stderr).not.toContain("did not accept");
    expect((await cli(dataDir, ["add", "stale-2", simulator.url, "--force"], "not-a-known-key")).code).toBe(0);
    const table = await cli(dataDir, ["validate", "stale-2", "-o", "table"]);
    expect(table.code).toBe(5);
    expect(table.stdout).toMatch(/^Valid +no$/m);
    expect(table.stdout).toMatch(/^Reason +The orchestrator accepts the API key neither/m);
    expect(JSON.parse((await cli(dataDir, ["validate", "stale-2", "-o", "json"])).stdout)).toEqual({
      alias: "stale-2",
      orchestratorUrl: simulator.url,
      valid: false,
    });
    expect((await cli(dataDir, ["delete", "stale-2"])).code).toBe(0);
  });

  it("rotates the master key only where the store is: through a service it says so, exit 2", async () => {
    const rotated = await cli(dataDir, ["rotate-master-key"]);
    expect(rotated).toMatchObject(
      mode === "service"
        ? {
            code: 2,
            stdout: "",
            stderr: expect.stringMatching(
              /^sdwan-connections: rotate-master-key: is a local-store operation, not one of the service's API \(context 'svc' is http:\/\/127\.0\.0\.1:\d+\): run it where the store is/,
            ),
          }
        : { code: 0, stdout: expect.stringMatching(/^Re-sealed \d+ of \d+ apiKeys with the current master key\n$/) },
    );
  });

  it("lists each connection's health: a CLI validation's outcome, seen by the next process and by the service; unknown if never validated", async () => {
    expect((await cli(dataDir, ["add", "unchecked", simulator.url, "--force"], PARTNER_KEY)).code).toBe(0);
    expect((await cli(dataDir, ["validate", "from-http"])).code).toBe(0);
    type Health = { alias: string; state: string; checks: { outcome: string }[] };
    const byAlias = (health: Health[]) =>
      Object.fromEntries(health.map(({ alias, state, checks }) => [alias, { state, last: checks[0]?.outcome }]));
    const fromCli = byAlias(JSON.parse((await cli(dataDir, ["health"])).stdout) as Health[]);
    expect(fromCli).toMatchObject({
      "from-http": { state: "valid", last: "valid" },
      unchecked: { state: "unknown", last: undefined },
    });
    const fromService = await service.call("GET", `${BASE}/health/connections`);
    expect(byAlias((fromService.json() as { connections: Health[] }).connections)).toMatchObject({
      "from-http": { state: "valid" },
      unchecked: { state: "unknown" },
    });
    expect((await cli(dataDir, ["delete", "unchecked"])).code).toBe(0);
  });

  // (A usage error, such as `--if-match one`, stops before the use case: it is not a write, so not audited.)
  it("shows the audit trail, newest first, with the writes of the CLI and of the service, a page at a time", async () => {
    const page = JSON.parse((await cli(dataDir, ["audit", "--alias", "LAB"])).stdout) as {
      entries: { action: string; actor: string }[];
      next: string | null;
    };
    // The health state changes the validations found are entries too (SPEC §9: events), made by the validation.
    expect(page.entries.map(({ action, actor }) => [action, actor.startsWith("cli:") ? "cli" : actor])).toEqual([
      ["delete", cliActor],
      ["delete", cliActor],
      ["health-change", "validation"],
      ["update", cliActor],
      ["update", cliActor],
      ["dry-run", cliActor],
      ["health-change", "validation"],
      ["add", cliActor],
    ]);
    const fromHttp = JSON.parse((await cli(dataDir, ["audit", "--alias", "from-http"])).stdout) as {
      entries: { action: string; actor: string; outcome: string }[];
    };
    expect(
      fromHttp.entries.map(({ action, actor, outcome }) => [action, actor.startsWith("cli:") ? "cli" : actor, outcome]),
    ).toEqual([
      ["health-change", "validation", "succeeded"],
      ["add", cliActor, "failed"],
      ["add", ADMIN.name, "succeeded"],
    ]);
    const first = JSON.parse((await cli(dataDir, ["audit", "--limit", "1"])).stdout) as { next: string };
    expect(JSON.parse((await cli(dataDir, ["audit", "--limit", "1", "--before", first.next])).stdout)).toMatchObject({
      entries: [{}],
    });
    expect((await cli(dataDir, ["audit", "--limit", "0"])).code).toBe(2);
  });

  // Real processes: everything the binary writes counts, its log lines on stderr included.
  it("add --api-key-ref: the key stays where it is kept, read by whoever opens the store; get says where", async () => {
    await writeFile(join(keyDir, "kept"), `${PARTNER_KEY}\n`);
    const env = { SDWAN_APIKEY_DIR: keyDir };
    const added = await cli(dataDir, ["add", "kept", simulator.url, "--api-key-ref", "file:kept"], "", env);
    expect(added).toMatchObject({ code: 0, stdout: "Connection successfully added\n" });
    expect(JSON.parse((await cli(dataDir, ["get", "kept"], "", env)).stdout)).toMatchObject({ apiKeyRef: "file:kept" });
    const escape = await cli(dataDir, ["update", "kept", "--api-key-ref", "file:../kept"], "", env);
    expect(escape.code).toBe(2);
    // In the CLI's words (README: never the REST API's body.apiKeyRef).
    expect(escape.stderr).toContain("--api-key-ref: ");
    expect(added.stdout + added.stderr + escape.stderr).not.toContain(PARTNER_KEY);
    expect((await cli(dataDir, ["delete", "kept"], "", env)).code).toBe(0);
  });

  it("never prints a key, neither its own nor a stored one", async () => {
    const runs = [
      await binary(dataDir, ["add", "secret-check", simulator.url], "sample-partner-key-2"),
      await binary(dataDir, ["list"]),
      await binary(dataDir, ["validate", "secret-check", "--verbose"]),
      await binary(dataDir, ["add", "refused-2", simulator.url], "refused-secret-key-xyz"),
    ];
    for (const { stdout, stderr } of runs) {
      for (const key of ["sample-partner-key-2", "refused-secret-key-xyz", PARTNER_KEY]) {
        expect(stdout + stderr).not.toContain(key);
      }
    }
  });

  // It ended at once (exit 0, nothing printed) as a process of its own on a local store: the store's looks for new
  // entries never keep a process alive, and the tests run in this process kept it alive for them.
  it("events --follow as a process of its own follows until Ctrl-C (exit 0)", async () => {
    const events = spawnBinary(dataDir, ["events", "--follow", "--alias", "alive-*"]);
    let added = false;
    for (let i = 0; i < 400 && !events.stdout().includes('"alive-1"'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Written once the follow has had time to start: a follow prints what comes after its start.
      if (i === 40 && !added) {
        added = true;
        await service.call("POST", `${BASE}/connections?force=true`, {
          body: { alias: "alive-1", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
        });
      }
    }
    events.interrupt();
    const { code, stdout } = await events.exited;
    expect(stdout).toContain('"subject":"alive-1"');
    expect(code).toBe(0);
    await service.call("DELETE", `${BASE}/connections/alive-1`);
  });

  it("events --follow prints each change as one CloudEvent line, the service's writes included, until Ctrl-C (exit 0)", async () => {
    expect(await cli(dataDir, ["events"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--follow: is required"),
    });
    const events = following(dataDir, ["events", "--follow", "--types", "connection.*", "--alias", "stream-*"]);
    // The stream is open once the service lists a later write: give it a moment, then write.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await service.call("POST", `${BASE}/connections?force=true`, {
      body: { alias: "stream-1", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
    });
    await service.call("POST", `${BASE}/connections?force=true`, {
      body: { alias: "other", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
    });
    await service.call("DELETE", `${BASE}/connections/stream-1`);
    const printed = await events.waitFor("connection.deleted");
    expect(await events.stop(130)).toBe(0);
    const lines = printed
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; subject: string; data: Record<string, unknown> });
    expect(lines.map(({ type, subject }) => [type, subject])).toEqual([
      ["org.sdwan-connections.connection.added", "stream-1"],
      ["org.sdwan-connections.connection.deleted", "stream-1"],
    ]);
    expect(lines[0]?.data).toMatchObject({ actor: ADMIN.name, forced: true });
    expect(printed).not.toContain(PARTNER_KEY);
    await service.call("DELETE", `${BASE}/connections/other`);
  });

  // SPEC §10: the CLI's `list -o wide` and `get` show the key's expiry, its days left and where it is known from.
  it("list -o wide shows each connection's health and key expiry with days left; get shows the days left", async () => {
    const expiresAt = new Date(Date.now() + 10 * 24 * 3600_000 - 3600_000).toISOString();
    await service.call("POST", `${BASE}/connections?force=true`, {
      body: { alias: "expiring", orchestratorUrl: simulator.url, apiKey: "expiring-key", apiKeyExpiresAt: expiresAt },
    });
    await service.call("POST", `${BASE}/connections`, {
      body: { alias: "checked-wide", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
    });
    expect((await cli(dataDir, ["validate", "checked-wide"])).code).toBe(0);
    const wide = await cli(dataDir, ["list", "-o", "wide"]);
    expect(wide.code).toBe(0);
    const [header, ...rows] = wide.stdout.trimEnd().split("\n");
    expect(header?.split(/\s{2,}/)).toEqual([
      "Alias",
      "Orchestrator URL",
      "Health",
      "Key expires at",
      "Key days left",
      "Key expiry from",
      "Key renewal",
    ]);
    expect(rows.find((row) => row.startsWith("expiring "))?.split(/\s{2,}/)).toEqual([
      "expiring",
      simulator.url,
      "unknown",
      expiresAt,
      "10",
      "declared",
      "off",
    ]);
    // Validated: valid, no expiry known.
    expect(rows.find((row) => row.startsWith("checked-wide "))?.split(/\s{2,}/)).toEqual([
      "checked-wide",
      simulator.url,
      "valid",
      "-",
      "-",
      "-",
      "off",
    ]);
    const got = await cli(dataDir, ["get", "expiring", "-o", "table"]);
    expect(got.stdout).toMatch(new RegExp(`Key expires at +${expiresAt}\n`));
    expect(got.stdout).toMatch(/Key days left +10\n/);
    expect(got.stdout).toMatch(/Key expiry from +declared\n/);
    expect((await cli(dataDir, ["get", "expiring", "-o", "wide"])).code).toBe(2);
    for (const alias of ["expiring", "checked-wide"]) expect((await cli(dataDir, ["delete", alias])).code).toBe(0);
  });

  // Issue 30: "a no-op update says 'updated'", "writes refuse -o json".
  it("an update that changes nothing says unchanged; writes give their result as JSON with -o json, words by default", async () => {
    expect(
      JSON.parse((await cli(dataDir, ["add", "written", simulator.url, "--force", "-o", "json"], PARTNER_KEY)).stdout),
    ).toEqual({ alias: "written", outcome: "added", message: "Connection successfully added" });
    const version = () =>
      service
        .call("GET", `${BASE}/connections/written?stored=true`)
        .then((got) => got.json<{ version: number }>().version);
    const before = await version();
    expect(await cli(dataDir, ["update", "written", "--url", simulator.url, "--force"])).toMatchObject({
      code: 0,
      stdout: "Connection unchanged: it already had this URL and key\n",
    });
    expect(await version()).toBe(before);
    expect(
      JSON.parse(
        (await cli(dataDir, ["update", "written", "--url", `${simulator.url}moved/`, "--force", "--json"])).stdout,
      ),
    ).toEqual({ alias: "written", outcome: "updated", message: "Connection successfully updated" });
    expect(await version()).toBeGreaterThan(before);
    expect((await cli(dataDir, ["update", "written", "--url", simulator.url, "--force", "-o", "yaml"])).stdout).toBe(
      "alias: written\noutcome: updated\nmessage: Connection successfully updated\n",
    );
    // Reading the version first changes no error: a bad change to a missing connection is a usage error in both modes.
    expect(await cli(dataDir, ["update", "ghost", "--url", "not a url"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--url:"),
    });
    expect(JSON.parse((await cli(dataDir, ["delete", "written", "-o", "json"])).stdout)).toEqual({
      alias: "written",
      outcome: "deleted",
      message: "Connection successfully deleted",
    });
  });
});

// A stream that ends (the service restarted, the network cut) is opened again with the last event's id: nothing lost, nothing twice.
describe("events --follow through a service that restarts", { timeout: 120_000 }, () => {
  // What starts the service on the same port each time: the CLI's context names it once.
  const serviceOnItsPort = async (dataDir: string) => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const port = String((free.address() as { port: number }).port);
    await new Promise((resolve) => free.close(resolve));
    return {
      SDWAN_DATA_DIR: dataDir,
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_PORT: port,
    };
  };

  it("reconnects with Last-Event-ID and prints every event once, those written while it was away included", async () => {
    const dataDir = await makeDataDir();
    const serviceEnv = await serviceOnItsPort(dataDir);
    let service = await startServiceProcess(serviceEnv);
    const modeEnv = await modeEnvironment("service", () => service.url);
    inMode = modeEnv.env;
    const add = (alias: string) =>
      service.call("POST", `${BASE}/connections?force=true`, {
        body: { alias, orchestratorUrl: "https://vco.example.net/", apiKey: PARTNER_KEY },
      });
    try {
      // Followed from a first event's id: what comes after it is printed however long the stream takes to open.
      await add("first");
      const [first] = (await service.call("GET", `${BASE}/audit?limit=1`)).json<{ entries: { id: string }[] }>()
        .entries;
      // Only the adds: a health round may check `first` (its orchestrator unreachable) after that id, and its event is
      // rightly printed too (a CI run under load printed one); what this test counts is the adds, each once.
      const events = following(dataDir, [
        "events",
        "--follow",
        "--since-id",
        first?.id ?? "",
        "--types",
        "connection.added",
      ]);
      await add("before-restart");
      await events.waitFor('"before-restart"');
      await service.stop();
      service = await startServiceProcess(serviceEnv);
      // Written before the CLI is back (it waits longer each time it finds no service): replayed from its Last-Event-ID.
      await add("while-away");
      await events.waitFor('"while-away"');
      await add("after-reconnect");
      const printed = await events.waitFor('"after-reconnect"');
      expect(await events.stop(130)).toBe(0);
      const lines = printed
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { id: string; subject: string });
      expect(lines.map(({ subject }) => subject)).toEqual(["before-restart", "while-away", "after-reconnect"]);
      expect(new Set(lines.map(({ id }) => id)).size).toBe(3);
    } finally {
      inMode = () => ({});
      await service.stop();
      await modeEnv.cleanUp();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  // A refusal is not a cut: the same request would be refused again, so the follow ends, saying why (the process itself).
  it("ends as a first connection would be refused when its service token was revoked meanwhile: exit 2 within seconds of the service's return, the token never printed", async () => {
    const dataDir = await makeDataDir();
    const configHome = await mkdtemp(join(tmpdir(), "sdwan-cli-config-"));
    const serviceEnv = await serviceOnItsPort(dataDir);
    let service = await startServiceProcess(serviceEnv);
    let events: ReturnType<typeof spawnBinary> | undefined;
    try {
      const made = await service.call("POST", `${BASE}/tokens`, {
        body: { name: "follower", expiresInDays: 1, role: "viewer" },
      });
      expect(made.status).toBe(201);
      const token = made.json<{ id: string; token: string }>();
      const tokenFile = join(configHome, "follower.token");
      await writeFile(tokenFile, `${token.token}\n`);
      mkdirSync(join(configHome, "sdwan-connections"));
      writeFileSync(
        join(configHome, "sdwan-connections", "config.yaml"),
        `current-context: svc\ncontexts:\n  - name: svc\n    server: ${service.url}\n    token-file: ${tokenFile}\n`,
      );
      const env = { XDG_CONFIG_HOME: configHome };
      const add = (alias: string) =>
        service.call("POST", `${BASE}/connections?force=true`, {
          body: { alias, orchestratorUrl: "https://vco.example.net/", apiKey: PARTNER_KEY },
        });
      // Followed from a first event's id: what comes after it is printed however long the process takes to start.
      await add("first");
      const [first] = (await service.call("GET", `${BASE}/audit?limit=1`)).json<{ entries: { id: string }[] }>()
        .entries;
      const args = ["events", "--follow", "--since-id", first?.id ?? ""];
      events = spawnBinary(dataDir, args, "", env);
      await add("followed");
      for (let i = 0; i < 400 && !events.stdout().includes('"followed"'); i += 1)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(events.stdout()).toContain('"followed"');

      expect((await service.call("DELETE", `${BASE}/tokens/${token.id}`)).status).toBe(204);
      await service.stop();
      service = await startServiceProcess(serviceEnv);
      const back = performance.now();
      // Bounded here, so that a follow that never ends fails the test and is killed.
      const ended = await Promise.race([
        events.exited,
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 30_000)),
      ]);
      const afterReturn = performance.now() - back;
      const refused = await binary(dataDir, args, "", env);
      expect(ended?.code).toBe(2);
      expect(ended?.stderr).toContain("context 'svc': the service refused the credentials");
      // Its reconnects are said on stderr as they happen (issue 38); then it ends with a first connection's line and code.
      const lines = (ended?.stderr ?? "").trimEnd().split("\n");
      expect(lines.slice(0, -1).every((line) => line.startsWith("sdwan-connections: events: the stream from "))).toBe(
        true,
      );
      expect({ code: ended?.code, stderr: `${lines.at(-1)}\n` }).toEqual({
        code: refused.code,
        stderr: refused.stderr,
      });
      expect(`${ended?.stdout}${ended?.stderr}`).not.toContain(token.token.slice("sdw_".length));
      // The longest wait between two reconnects is 5 s: twice it for a loaded machine (following forever takes 30 s here).
      expect(afterReturn).toBeLessThan(10_000);
    } finally {
      events?.kill();
      await service.stop();
      await rm(configHome, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

// Issue 30: the installed command looked for ./data wherever it ran, and `add` made a store there.
describe("without a context", { timeout: 120_000 }, () => {
  it("says loudly that it uses ./data, never creates a store there unasked, and a context names one that add creates", async () => {
    const cwd = await makeDataDir();
    const configHome = await makeDataDir();
    try {
      const refused = await binary("", ["add", "lab", "https://vco.example.net/", "--force"], "k-1", {}, cwd);
      expect(refused.code).toBe(8);
      expect(refused.stderr).toContain(
        `sdwan-connections: no context: using the local store in ${join(cwd, "data")} (SDWAN_DATA_DIR is not set: ./data in the current directory); set a context with 'sdwan-connections config set-context' (said once for this directory)\n`,
      );
      expect(refused.stderr).toContain(
        "a new store is created only where one is named: a context (sdwan-connections config set-context NAME --data-dir DIR) or SDWAN_DATA_DIR",
      );
      expect(existsSync(join(cwd, "data"))).toBe(false);

      const env = { XDG_CONFIG_HOME: configHome };
      expect(await binary("", ["config", "set-context", "lab", "--data-dir", "store"], "", env, cwd)).toMatchObject({
        code: 0,
        stdout: `Context 'lab' set: local store in ${join(cwd, "store")}.\n`,
      });
      const added = await binary("", ["add", "lab", "https://vco.example.net/", "--force"], "k-1", env, cwd);
      expect(added).toEqual({
        code: 0,
        stdout: "Connection successfully added\n",
        stderr: `sdwan-connections: creating a new store in ${join(cwd, "store")}\n`,
      });
      expect(JSON.parse((await binary("", ["list"], "", env, cwd)).stdout)).toEqual([
        { alias: "lab", orchestratorUrl: "https://vco.example.net/" },
      ]);
    } finally {
      await rm(cwd, { recursive: true, force: true });
      await rm(configHome, { recursive: true, force: true });
    }
  });
});

describe("rotate-master-key", { timeout: 120_000 }, () => {
  it("re-seals every key with the new master key; the old one is then no longer needed", async () => {
    const dataDir = await makeDataDir();
    const [oldKey, newKey] = [Buffer.alloc(32, 1).toString("base64"), Buffer.alloc(32, 2).toString("base64")];
    try {
      expect(
        (await cli(dataDir, ["add", "lab", "https://vco.example.net/", "--force"], "k-1", { SDWAN_MASTER_KEY: oldKey }))
          .code,
      ).toBe(0);
      const rotated = await cli(dataDir, ["rotate-master-key"], "", {
        SDWAN_MASTER_KEY: newKey,
        SDWAN_MASTER_KEY_PREVIOUS: oldKey,
      });
      expect(rotated).toMatchObject({ code: 0, stdout: "Re-sealed 1 of 1 apiKeys with the current master key\n" });
      expect((await cli(dataDir, ["list"], "", { SDWAN_MASTER_KEY: newKey })).code).toBe(0);
      // Without rotation the new key alone would not open the store; after it, the old key alone does not.
      const withOldKey = await cli(dataDir, ["list"], "", { SDWAN_MASTER_KEY: oldKey });
      expect(withOldKey.code).toBe(2);
      expect(withOldKey.stderr).toContain("wrong master key");
      expect(withOldKey.stderr).not.toContain(oldKey);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

// Configuration as code, the CLI alone on its own data directory, or through a service over it.
describe.each(MODES)("export and apply, on a %s", { timeout: 120_000 }, (mode) => {
  let dataDir: string;
  let simulator: Awaited<ReturnType<typeof startOrchestratorSimulator>>;
  let filesDir: string;
  let service: ServiceProcess | undefined;
  let modeEnv: Awaited<ReturnType<typeof modeEnvironment>>;
  const env = () => ({
    SDWAN_APIKEY_LAB: PARTNER_KEY,
    SDWAN_APIKEY_EDGE: "sample-partner-key-2",
    SDWAN_APIKEY_DIR: filesDir,
  });
  // Beside the data directory, not in it: key references may not reach the data directory; key files are in SDWAN_APIKEY_DIR.
  const writeConfiguration = async (name: string, text: string) => {
    const path = join(filesDir, name);
    await writeFile(path, text);
    return path;
  };
  type Outcome = {
    plan: { action: string; alias: string; fields: string[] }[];
    results?: { action: string; alias: string; outcome: string; reason?: string }[];
  };

  beforeAll(async () => {
    dataDir = await makeDataDir();
    filesDir = await makeDataDir();
    simulator = await startOrchestratorSimulator({ data: await loadSampleDataset(), host: "127.0.0.1", port: 0 });
    // The service only where the CLI goes through it: the local store's dry run creates no store, which a service's start would.
    service =
      mode === "service"
        ? await startServiceProcess({
            SDWAN_DATA_DIR: dataDir,
            SDWAN_ADMIN_USER: ADMIN.name,
            SDWAN_ADMIN_PASSWORD: ADMIN.password,
          })
        : undefined;
    modeEnv = await modeEnvironment(mode, () => service?.url ?? "");
    inMode = modeEnv.env;
  });

  afterAll(async () => {
    inMode = () => ({});
    await service?.stop();
    await modeEnv?.cleanUp();
    await simulator?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(filesDir, { recursive: true, force: true });
  });

  it("applies a file whose keys are env: and file: references; the same file again changes nothing", async () => {
    await writeFile(join(filesDir, "edge.key"), "sample-partner-key-2\n");
    const file = await writeConfiguration(
      "sdwan.yaml",
      `connections:\n  - alias: lab\n    orchestratorUrl: ${simulator.url}\n    apiKey: env:SDWAN_APIKEY_LAB\n  - alias: edge\n    orchestratorUrl: ${simulator.url}\n    apiKey: file:${join(filesDir, "edge.key")}\n`,
    );
    const dryRun = await cli(dataDir, ["apply", "-f", file, "--dry-run"], "", env());
    expect(dryRun.code).toBe(0);
    expect((JSON.parse(dryRun.stdout) as Outcome).plan.map((step) => `${step.action} ${step.alias}`)).toEqual([
      "create lab",
      "create edge",
    ]);
    // The dry run created nothing, not even the store (a service made its own at its start).
    expect(await cli(dataDir, ["list"])).toMatchObject(
      mode === "local store" ? { code: 8, stdout: "" } : { code: 0, stdout: "[]\n" },
    );

    const applied = await cli(dataDir, ["apply", "-f", file], "", env());
    expect(applied.code).toBe(0);
    expect((JSON.parse(applied.stdout) as Outcome).results?.map((result) => result.outcome)).toEqual([
      "applied",
      "applied",
    ]);
    const again = JSON.parse((await cli(dataDir, ["apply", "--file", file], "", env())).stdout) as Outcome;
    expect(again.plan.map((step) => step.action)).toEqual(["unchanged", "unchanged"]);
    expect(again.results?.map((result) => result.outcome)).toEqual(["unchanged", "unchanged"]);
    for (const run of [dryRun, applied]) expect(run.stdout + run.stderr).not.toContain(PARTNER_KEY);
  });

  it("exports what apply reads back: keys as references, never their values", async () => {
    const exported = await cli(dataDir, ["export"]);
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain("apiKey: env:SDWAN_APIKEY_LAB");
    expect(exported.stdout).not.toContain(PARTNER_KEY);
    const asJson = JSON.parse((await cli(dataDir, ["export", "--format", "json"])).stdout) as {
      connections: unknown[];
    };
    // -o, as every other command takes it (issue 30: export refused it).
    expect((await cli(dataDir, ["export", "-o", "json"])).stdout).toBe(JSON.stringify(asJson, null, 2) + "\n");
    expect(asJson.connections).toEqual([
      { alias: "edge", orchestratorUrl: simulator.url, apiKey: "env:SDWAN_APIKEY_EDGE" },
      { alias: "lab", orchestratorUrl: simulator.url, apiKey: "env:SDWAN_APIKEY_LAB" },
    ]);
    const file = await writeConfiguration("exported.yaml", exported.stdout);
    expect(
      (JSON.parse((await cli(dataDir, ["apply", "-f", file], "", env())).stdout) as Outcome).plan.map(
        (step) => step.action,
      ),
    ).toEqual(["unchanged", "unchanged"]);
  });

  it("applies a declared key expiry once: the same file again changes nothing", async () => {
    const file = await writeConfiguration(
      "expiry.yaml",
      `connections:\n  - alias: lab\n    orchestratorUrl: ${simulator.url}\n    apiKey: env:SDWAN_APIKEY_LAB\n    apiKeyExpiresAt: "2030-01-01T00:00:00Z"\n`,
    );
    const first = JSON.parse((await cli(dataDir, ["apply", "-f", file], "", env())).stdout) as Outcome;
    expect(first.plan.map((step) => `${step.action} ${step.alias} ${step.fields.join(",")}`)).toEqual([
      "update lab apiKeyExpiresAt",
    ]);
    expect(first.results?.map((result) => result.outcome)).toEqual(["applied"]);
    const again = JSON.parse((await cli(dataDir, ["apply", "-f", file], "", env())).stdout) as Outcome;
    expect(again.plan.map((step) => step.action)).toEqual(["unchanged"]);
  });

  // SPEC §12: keyRenewal is a field of the file like the others (the round trip through each store: the renewal track's stores).
  it("plans keyRenewal as a change of the field; a bad value is refused naming its place, never applied", async () => {
    const file = await writeConfiguration(
      "renewal.yaml",
      `connections:\n  - alias: lab\n    orchestratorUrl: ${simulator.url}\n    apiKey: env:SDWAN_APIKEY_LAB\n    keyRenewal: auto\n`,
    );
    const planned = JSON.parse((await cli(dataDir, ["apply", "-f", file, "--dry-run"], "", env())).stdout) as Outcome;
    expect(planned.plan.map((step) => `${step.action} ${step.alias} ${step.fields.join(",")}`)).toEqual([
      "update lab keyRenewal",
    ]);
    const bad = await writeConfiguration("bad-renewal.yaml", (await readFile(file, "utf8")).replace("auto", "always"));
    expect(await cli(dataDir, ["apply", "-f", bad], "", env())).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("connections.0.keyRenewal: must be one of auto, off"),
    });
  });

  it("says exactly what was applied and what was not when a step fails; --prune deletes what the file omits", async () => {
    const file = await writeConfiguration(
      "partial.yaml",
      `connections:\n  - alias: refused\n    orchestratorUrl: ${simulator.url}\n    apiKey: env:SDWAN_APIKEY_BAD\n  - alias: lab\n    orchestratorUrl: ${simulator.url.replace(/\/$/, "")}\n    apiKey: env:SDWAN_APIKEY_LAB\n`,
    );
    const run = await cli(dataDir, ["apply", "-f", file, "--prune"], "", {
      ...env(),
      SDWAN_APIKEY_BAD: "not-a-known-key",
    });
    expect(run.code).toBe(5);
    const outcome = JSON.parse(run.stdout) as Outcome;
    expect(outcome.results?.map((result) => `${result.action} ${result.alias}: ${result.outcome}`)).toEqual([
      "create refused: failed",
      "update lab: applied",
      "delete edge: applied",
    ]);
    expect(outcome.results?.[0]?.reason).toContain("did not accept");
    expect(run.stdout).not.toContain("not-a-known-key");
  });

  it("stops on SIGTERM within a second, saying what was applied, what was under way and what was not started", async () => {
    // An orchestrator that accepts connections and never answers: validations against it hang.
    const held: Socket[] = [];
    const silent = createServer((connection) => held.push(connection));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const address = silent.address();
    const silentUrl = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/`;
    try {
      const entries = Array.from({ length: 20 }, (_, i) => ({
        alias: `stop-${i}`,
        url: i < 4 ? simulator.url : silentUrl,
      }));
      const file = await writeConfiguration(
        "stopped.yaml",
        `connections:\n${entries.map(({ alias, url }, i) => `  - alias: ${alias}\n    orchestratorUrl: ${url}\n    apiKey: env:SDWAN_APIKEY_S${i}\n`).join("")}`,
      );
      const child = spawn(
        process.execPath,
        ["--conditions=sdwan-source", "--import", "tsx", "src/main.ts", "apply", "-f", file],
        {
          cwd: PACKAGE_DIR,
          env: {
            PATH: process.env["PATH"] ?? "",
            SDWAN_DATA_DIR: dataDir,
            SDWAN_LOG_LEVEL: "warn",
            ...inMode(),
            ...Object.fromEntries(entries.map((_, i) => [`SDWAN_APIKEY_S${i}`, PARTNER_KEY])),
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = once(child, "exit");
      // Until the four quick steps are applied (their audit entries) and the others hang on the silent orchestrator.
      for (let i = 0; i < 300 && held.length < 8; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const signalled = Date.now();
      child.kill("SIGTERM");
      const [code] = await exited;
      expect(Date.now() - signalled).toBeLessThan(1_000);
      expect(code).toBe(143);
      const outcome = JSON.parse(stdout) as Outcome;
      const count = (wanted: string) => outcome.results?.filter(({ outcome: got }) => got === wanted).length;
      expect([count("applied"), count("interrupted"), count("skipped")]).toEqual([4, 8, 8]);
      expect(outcome.results?.slice(0, 4).map(({ alias, outcome: got }) => `${alias} ${got}`)).toEqual([
        "stop-0 applied",
        "stop-1 applied",
        "stop-2 applied",
        "stop-3 applied",
      ]);
    } finally {
      for (const connection of held) connection.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  // Issue 27: yaml's warning about an unknown tag quoted the line around it, key included, on standard error.
  it("never prints a key written inline behind a YAML tag, whatever the library would warn (the process's whole output)", async () => {
    const inlineKey = "sk-live-4f9a8b7c6d5e-inline";
    const tagged = await writeConfiguration(
      "tagged.yaml",
      `connections:\n  - alias: lab\n    orchestratorUrl: ${simulator.url}\n    apiKey: !secret ${inlineKey}\n`,
    );
    for (const args of [
      ["apply", "-f", tagged, "--dry-run"],
      ["apply", "-f", tagged],
    ]) {
      const run = await binary(dataDir, args, "", { ...env(), SDWAN_LOG_LEVEL: "debug" });
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("connections.0.apiKey");
      expect(run.stdout + run.stderr).not.toContain(inlineKey);
      expect(run.stdout + run.stderr).not.toContain("sk-live");
    }
  });

  it("refuses a file holding a key itself, or naming an unset variable, naming the place and never the value", async () => {
    const literal = await writeConfiguration(
      "literal.yaml",
      `connections:\n  - alias: lab\n    orchestratorUrl: ${simulator.url}\n    apiKey: ${PARTNER_KEY}\n`,
    );
    const refused = await cli(dataDir, ["apply", "-f", literal], "", env());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("connections.0.apiKey");
    expect(refused.stderr).not.toContain(PARTNER_KEY);
    const unset = await writeConfiguration(
      "unset.json",
      JSON.stringify({
        connections: [{ alias: "lab", orchestratorUrl: simulator.url, apiKey: "env:SDWAN_APIKEY_NOT_SET" }],
      }),
    );
    expect(await cli(dataDir, ["apply", "-f", unset, "--require-keys"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("env:SDWAN_APIKEY_NOT_SET: the variable is not set"),
    });
    expect((await cli(dataDir, ["apply"])).code).toBe(2);
  });

  // SPEC §11: configuration as code carries grants; apply plans them, deletes only with --prune.
  it("carries grants: planned (text and JSON), a dry run changes nothing, deleted only with --prune, exported", async () => {
    type Grants = {
      grants: { action: string; grant: { subject: string } }[];
      results?: { action: string; grant?: { subject: string }; outcome: string }[];
    };
    const grantsOf = (run: { stdout: string }) =>
      (JSON.parse(run.stdout) as Grants).grants.map(({ action, grant }) => `${action} ${grant.subject}`);
    const exported = async () =>
      (JSON.parse((await cli(dataDir, ["export", "-o", "json"])).stdout) as { grants?: unknown[] }).grants;
    const both = await writeConfiguration(
      "grants.yaml",
      `connections: []\ngrants:\n  - subject: group:emea\n    pattern: "emea-*"\n    verb: use\n  - subject: token:ci\n    pattern: lab\n    verb: manage\n`,
    );
    const dryRun = await cli(dataDir, ["apply", "-f", both, "--dry-run"], "", env());
    expect(dryRun.code).toBe(0);
    expect(grantsOf(dryRun)).toEqual(["create group:emea", "create token:ci"]);
    const text = await cli(dataDir, ["apply", "-f", both, "--dry-run", "-o", "table"], "", env());
    expect(text.stdout).toContain(
      "Grants: 2 to create, 0 to delete, 0 unchanged\n  + create    grant group:emea use emea-*\n  + create    grant token:ci manage lab\n",
    );
    expect(await exported()).toBeUndefined();

    const applied = await cli(dataDir, ["apply", "-f", both], "", env());
    expect(applied.code).toBe(0);
    expect(
      (JSON.parse(applied.stdout) as Grants).results?.map(({ grant, outcome }) => `${grant?.subject}: ${outcome}`),
    ).toEqual(["group:emea: applied", "token:ci: applied"]);
    expect(await exported()).toEqual([
      { subject: "group:emea", pattern: "emea-*", verb: "use" },
      { subject: "token:ci", pattern: "lab", verb: "manage" },
    ]);

    const one = await writeConfiguration(
      "one-grant.yaml",
      `connections: []\ngrants:\n  - subject: group:emea\n    pattern: "EMEA-*"\n    verb: use\n`,
    );
    expect(grantsOf(await cli(dataDir, ["apply", "-f", one], "", env()))).toEqual(["unchanged group:emea"]);
    expect(await exported()).toHaveLength(2);
    const pruned = await cli(dataDir, ["apply", "-f", one, "--prune"], "", env());
    expect(pruned.code).toBe(0);
    expect(grantsOf(pruned)).toEqual(["unchanged group:emea", "delete token:ci"]);
    expect(await exported()).toEqual([{ subject: "group:emea", pattern: "emea-*", verb: "use" }]);

    const bad = await writeConfiguration(
      "bad-grant.yaml",
      `connections: []\ngrants:\n  - subject: alice\n    pattern: lab\n    verb: own\n`,
    );
    const refused = await cli(dataDir, ["apply", "-f", bad, "--prune"], "", env());
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("grants.0.subject");
    expect(refused.stderr).toContain("grants.0.verb");
    expect(await exported()).toHaveLength(1);
  });
});
