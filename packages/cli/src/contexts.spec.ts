import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import { createTestCertificates } from "@sdwan-connections/orchestrator-simulator";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./cli.js";

// Contexts (issue 30): the CLI's own configuration file, in a configuration directory of each test's own.
describe("contexts", () => {
  let configHome: string;
  let servers: Server[];
  const configFile = () => join(configHome, "sdwan-connections", "config.yaml");

  const run = async (
    argv: readonly string[],
    options: { readonly interactive?: boolean; readonly env?: Record<string, string> } = {},
  ) => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const prompts: string[] = [];
    const code = await runCli(argv, {
      stdout: { isTTY: false, write: (text: string) => stdout.push(text) },
      stderr: { isTTY: false, write: (text: string) => stderr.push(text) },
      readSecret: async (prompt) => {
        prompts.push(prompt);
        return "typed-password";
      },
      interactive: options.interactive ?? false,
      env: {
        XDG_CONFIG_HOME: configHome,
        SDWAN_DATA_DIR: join(configHome, "no-store"),
        SDWAN_LOG_LEVEL: "warn",
        ...options.env,
      },
    });
    return { code, stdout: stdout.join(""), stderr: stderr.join(""), prompts };
  };

  // A service that answers every request with an empty list, and keeps each one's path and Authorization header.
  let seen: string[];
  const echoService = async (): Promise<string> => {
    const server = createServer((request, response) => {
      seen.push(`${request.method} ${request.url} ${request.headers.authorization ?? "none"}`);
      response.setHeader("content-type", "application/json");
      response.end("[]");
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    return `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  };

  beforeEach(async () => {
    configHome = await mkdtemp(join(tmpdir(), "sdwan-cli-contexts-"));
    servers = [];
    seen = [];
  });
  afterEach(async () => {
    for (const server of servers) server.close();
    await rm(configHome, { recursive: true, force: true });
  });

  it("SDWAN_SERVER with SDWAN_TOKEN (or SDWAN_TOKEN_FILE) needs no file; SDWAN_CONTEXT and --context win over it; the token never printed", async () => {
    const fromEnvironment = await echoService();
    const fromFile = await echoService();
    const token = "sdw_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    expect(await run(["list"], { env: { SDWAN_SERVER: fromEnvironment, SDWAN_TOKEN: token } })).toMatchObject({
      code: 0,
      stderr: "",
    });
    expect(seen.pop()).toBe(`GET /rest/plugin/sdwan/connections Bearer ${token}`);
    const tokenFile = join(configHome, "ci.token");
    await writeFile(tokenFile, `${token}\n`);
    await run(["list"], { env: { SDWAN_SERVER: fromEnvironment, SDWAN_TOKEN_FILE: tokenFile } });
    expect(seen.pop()).toBe(`GET /rest/plugin/sdwan/connections Bearer ${token}`);
    expect(await run(["list"], { env: { SDWAN_SERVER: "ftp://nowhere" } })).toMatchObject({
      code: 2,
      stderr: "sdwan-connections: SDWAN_SERVER must be an http: or https: URL\n",
    });
    await run(["config", "set-context", "file", "--server", fromFile]);
    // A named context wins over SDWAN_SERVER: SDWAN_CONTEXT, then --context.
    await run(["list"], { env: { SDWAN_SERVER: fromEnvironment, SDWAN_CONTEXT: "file" } });
    expect(seen.pop()).toBe("GET /rest/plugin/sdwan/connections none");
    await run(["list", "--context", "file"], { env: { SDWAN_SERVER: fromEnvironment, SDWAN_TOKEN: token } });
    expect(seen.pop()).toBe("GET /rest/plugin/sdwan/connections none");
    // SDWAN_SERVER wins over the file's current context.
    await run(["list"], { env: { SDWAN_SERVER: fromEnvironment, SDWAN_TOKEN: token } });
    expect(seen.pop()).toBe(`GET /rest/plugin/sdwan/connections Bearer ${token}`);
    expect(await run(["list"], { env: { SDWAN_CONTEXT: "missing" } })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("no context named 'missing'"),
    });
  });

  // Bug: with SDWAN_CONTEXT=nope the refusal did not say where the name came from.
  it("says where an unknown context's name came from: --context, SDWAN_CONTEXT or the file's current context", async () => {
    const unknown = (name: string, source: string) =>
      `sdwan-connections: no context named '${name}' (${source}); see 'sdwan-connections config get-contexts'\n`;
    expect(await run(["list"], { env: { SDWAN_CONTEXT: "nope" } })).toMatchObject({
      code: 2,
      stderr: unknown("nope", "from SDWAN_CONTEXT"),
    });
    expect(await run(["list", "--context", "ghost"], { env: { SDWAN_CONTEXT: "nope" } })).toMatchObject({
      code: 2,
      stderr: unknown("ghost", "from --context"),
    });
    await mkdir(join(configHome, "sdwan-connections"));
    await writeFile(configFile(), "current-context: gone\ncontexts: []\n");
    expect(await run(["list"])).toMatchObject({ code: 2, stderr: unknown("gone", "the current context") });
  });

  // Issue 38: "every CLI call without a context repeats a long warning".
  it("says the no-context note once per data directory, noted in the configuration directory", async () => {
    const bare = { SDWAN_DATA_DIR: "" };
    const noted = (result: { stderr: string }) => result.stderr.includes("no context: using the local store");
    expect(noted(await run(["list"], { env: bare }))).toBe(true);
    expect(noted(await run(["list"], { env: bare }))).toBe(false);
    expect(noted(await run(["health"], { env: bare }))).toBe(false);
    expect(await readFile(join(configHome, "sdwan-connections", "no-context-noted"), "utf8")).toBe(
      `${join(process.cwd(), "data")}\n`,
    );
    expect((await stat(join(configHome, "sdwan-connections", "no-context-noted"))).mode & 0o777).toBe(0o600);
  });

  it("sets, lists, switches and names contexts, the first one set becoming current; the file holds no secret and only its owner reads it", async () => {
    expect(await run(["config", "get-contexts", "-o", "table"])).toMatchObject({
      code: 0,
      stdout:
        "No contexts: commands use the local store (SDWAN_DATA_DIR, else ./data); add one with 'config set-context'.\n",
    });
    expect(await run(["config", "get-contexts"])).toMatchObject({ code: 0, stdout: "[]\n" });
    expect(await run(["config", "current-context"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("no current context"),
    });
    const passwordFile = join(configHome, "prod.password");
    await writeFile(passwordFile, "s3cret-password\n");
    expect(
      await run([
        "config",
        "set-context",
        "prod",
        "--server",
        "https://sdwan.example.net",
        "--user",
        "admin",
        "--password-file",
        passwordFile,
      ]),
    ).toMatchObject({
      code: 0,
      stdout: "Context 'prod' set: https://sdwan.example.net as admin.\n",
    });
    expect(await run(["config", "set-context", "lab", "--data-dir", join(configHome, "lab")])).toMatchObject({
      code: 0,
    });
    expect(await run(["config", "current-context"])).toEqual({ code: 0, stdout: "prod\n", stderr: "", prompts: [] });
    expect(await run(["config", "use-context", "lab"])).toMatchObject({
      code: 0,
      stdout: "Switched to context 'lab'.\n",
    });
    expect(JSON.parse((await run(["config", "get-contexts"])).stdout)).toEqual([
      {
        name: "prod",
        server: "https://sdwan.example.net",
        user: "admin",
        "password-file": passwordFile,
        current: false,
      },
      { name: "lab", "data-dir": join(configHome, "lab"), current: true },
    ]);
    const text = await readFile(configFile(), "utf8");
    expect(text).not.toContain("s3cret-password");
    expect((await stat(configFile())).mode & 0o777).toBe(0o600);
    expect(await run(["config", "use-context", "nope"])).toMatchObject({
      code: 2,
      stderr: "sdwan-connections: no context named 'nope'; see 'sdwan-connections config get-contexts'\n",
    });
  });

  it("takes no password or token on the command line, and exactly one place per context", async () => {
    expect(
      await run(["config", "set-context", "prod", "--server", "https://x.example", "--password", "p"]),
    ).toMatchObject({ code: 2, stderr: expect.stringContaining("unknown option --password") });
    expect(
      await run(["config", "set-context", "prod", "--server", "https://x.example", "--data-dir", "d"]),
    ).toMatchObject({ code: 2, stderr: expect.stringContaining("exactly one of") });
    expect(await run(["config", "set-context", "prod", "--data-dir", "d", "--user", "u"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--user goes with --server only"),
    });
    expect(await run(["config", "set-context", "prod", "--server", "ftp://x.example"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("must be an http: or https: URL"),
    });
  });

  it("refuses a bad configuration file in one line naming it and the place, exit 2, for every command", async () => {
    await mkdir(join(configHome, "sdwan-connections"));
    await writeFile(
      configFile(),
      "current-context: prod\ncontexts:\n  - name: prod\n    server: https://x.example\n    pasword-file: /tmp/p\n",
    );
    for (const argv of [["list"], ["config", "get-contexts"]]) {
      const result = await run(argv);
      expect(result.code, argv.join(" ")).toBe(2);
      // Only the field that is wrong: the context's kind's other fields were named too ("server: is not a known field").
      expect(result.stderr.split(/[;\n]/)[0]).toBe(
        `sdwan-connections: ${configFile()}: contexts.pasword-file: is not a known field`,
      );
    }
    await writeFile(configFile(), "contexts:\n  - name: nowhere\n");
    expect((await run(["list"])).stderr).toBe(
      `sdwan-connections: ${configFile()}: contexts: needs one of server, data-dir, postgres-url-env\n`,
    );
    await writeFile(configFile(), "current-context: a\ncontexts: [\n");
    expect(await run(["list"])).toMatchObject({
      code: 2,
      stderr: `sdwan-connections: ${configFile()} is not valid YAML near line 3\n`,
    });
  });

  it("runs a command against the context's service, --context choosing another for one command; the password from its file, never on argv", async () => {
    const url = await echoService();
    const passwordFile = join(configHome, "admin.password");
    await writeFile(passwordFile, "from-file\n");
    await writeFile(join(configHome, "token"), "a-service-token\n");
    expect(
      (await run(["config", "set-context", "svc", "--server", url, "--user", "admin", "--password-file", passwordFile]))
        .code,
    ).toBe(0);
    expect(
      (await run(["config", "set-context", "bot", "--server", url, "--token-file", join(configHome, "token")])).code,
    ).toBe(0);
    const basic = `Basic ${Buffer.from("admin:from-file").toString("base64")}`;
    expect(await run(["list"])).toEqual({ code: 0, stdout: "[]\n", stderr: "", prompts: [] });
    expect(await run(["list", "--context", "bot"])).toMatchObject({ code: 0, stdout: "[]\n" });
    expect(seen).toEqual([
      `GET /rest/plugin/sdwan/connections ${basic}`,
      "GET /rest/plugin/sdwan/connections Bearer a-service-token",
    ]);
    expect(await run(["list", "--context", "ghost"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("no context named 'ghost'"),
    });
  });

  it("trusts a private CA for an https: service only when the context names its file", async () => {
    const certificates = createTestCertificates();
    const server = createTlsServer({ key: certificates.key, cert: certificates.cert }, (_request, response) => {
      response.setHeader("content-type", "application/json");
      response.end("[]");
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const url = `https://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
    const caFile = join(configHome, "ca.pem");
    await writeFile(caFile, certificates.caCert);
    expect((await run(["config", "set-context", "untrusted", "--server", url])).code).toBe(0);
    expect(await run(["list"])).toMatchObject({
      code: 7,
      stderr: expect.stringMatching(
        /^sdwan-connections: The service at https:\/\/127\.0\.0\.1:\d+ cannot be reached \([A-Z_]+\)\.\n$/,
      ),
    });
    expect((await run(["config", "set-context", "trusted", "--server", url, "--ca-file", caFile])).code).toBe(0);
    expect(await run(["list", "--context", "trusted"])).toMatchObject({ code: 0, stdout: "[]\n" });
  });

  it("asks a context's password at a hidden prompt on a terminal, and says what to do when there is none", async () => {
    const url = await echoService();
    expect((await run(["config", "set-context", "svc", "--server", url, "--user", "admin"])).code).toBe(0);
    const typed = await run(["list"], { interactive: true });
    expect(typed.prompts).toEqual([`password of admin at ${url} (hidden; Enter ends it): `]);
    expect(typed).toMatchObject({ code: 0, stdout: "[]\n" });
    expect(seen).toEqual([
      `GET /rest/plugin/sdwan/connections Basic ${Buffer.from("admin:typed-password").toString("base64")}`,
    ]);
    expect(await run(["list"])).toMatchObject({
      code: 2,
      stderr:
        "sdwan-connections: context 'svc': no password for admin: standard input is not a terminal; give the context one in a file (config set-context svc --password-file FILE)\n",
    });
    // The completion script never prompts.
    expect(await run(["__complete", "aliases"])).toEqual({ code: 0, stdout: "", stderr: "", prompts: [] });
  });

  // Bug: the password prompt was 82 characters and wrapped in a terminal of 80 columns.
  it("fits every prompt, with the cursor after it, in 80 columns", async () => {
    const url = await echoService();
    const server = `${url}/a/service/behind/a/rather/long/path/prefix/of/a/reverse/proxy`;
    expect((await run(["config", "set-context", "svc", "--server", url, "--user", "admin"])).code).toBe(0);
    expect((await run(["config", "set-context", "far", "--server", server, "--user", "an-operator"])).code).toBe(0);
    const prompts = [
      ...(await run(["list"], { interactive: true })).prompts,
      ...(await run(["add", "lab", "https://vco.example.net/", "--force"], { interactive: true })).prompts,
      ...(await run(["list", "--context", "far"], { interactive: true })).prompts,
    ];
    expect(prompts).toEqual([
      `password of admin at ${url} (hidden; Enter ends it): `,
      `password of admin at ${url} (hidden; Enter ends it): `,
      "apiKey (hidden; Enter ends it): ",
      expect.stringMatching(
        /^password of an-operator at http:\/\/127\.0\.0\.1:\d+\/a\/.*… \(hidden; Enter ends it\): $/,
      ),
    ]);
    for (const prompt of prompts) expect([...prompt].length, prompt).toBeLessThan(80);
  });

  it("says a service that cannot be reached is one (exit 7), and refuses the store's own operations through a service (exit 2)", async () => {
    expect((await run(["config", "set-context", "down", "--server", "http://127.0.0.1:9"])).code).toBe(0);
    expect(await run(["list"])).toMatchObject({
      code: 7,
      stderr: "sdwan-connections: The service at http://127.0.0.1:9 cannot be reached (ECONNREFUSED).\n",
    });
    expect(await run(["rotate-master-key"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("rotate-master-key: is a local-store operation"),
    });
  });

  // Regression (issue 36, 9): it named SDWAN_DATABASE_URL, said the read was "migrating the schema", and exited 2.
  it("says a PostgreSQL context's database that cannot be reached is one, naming the context's variable: exit 7, no password", async () => {
    expect((await run(["config", "set-context", "db", "--postgres-url-env", "LAB_DATABASE_URL"])).code).toBe(0);
    const answer = await run(["list"], {
      env: {
        LAB_DATABASE_URL: "postgres://sdwan:pw-never-shown@127.0.0.1:9/sdwan",
        SDWAN_MASTER_KEY: Buffer.alloc(32, 1).toString("base64"),
      },
    });
    expect(answer).toMatchObject({
      code: 7,
      stderr:
        "sdwan-connections: LAB_DATABASE_URL: Storage failure while connecting: PostgreSQL cannot be reached (ECONNREFUSED).\n",
    });
    expect(answer.stderr).not.toMatch(/SDWAN_DATABASE_URL|migrat|pw-never-shown/);
  });

  it("a local context names the store: its data directory, or PostgreSQL from the variable it names", async () => {
    expect((await run(["config", "set-context", "db", "--postgres-url-env", "LAB_DATABASE_URL"])).code).toBe(0);
    expect(await run(["list"])).toMatchObject({
      code: 2,
      stderr: "sdwan-connections: context 'db': LAB_DATABASE_URL is not set (it holds the PostgreSQL URL)\n",
    });
    expect((await run(["config", "set-context", "lab", "--data-dir", join(configHome, "lab")])).code).toBe(0);
    // The context named the directory, not SDWAN_DATA_DIR: the line says so, and how to point the context elsewhere.
    expect(await run(["list", "--context", "lab"])).toMatchObject({
      code: 8,
      stderr: `sdwan-connections: no store in ${join(configHome, "lab")} (context 'lab'); point the context at the service's data directory: sdwan-connections config set-context lab --data-dir DIR\n`,
    });
    // `config` shows the current context's store.
    expect(
      JSON.parse(
        (await run(["config"], { env: { LAB_DATABASE_URL: "postgres://sdwan:pw@db.example.net/sdwan" } })).stdout,
      ),
    ).toMatchObject({
      context: { name: "db", where: "local PostgreSQL store ($LAB_DATABASE_URL)" },
      storage: "postgres",
      database: "postgres://sdwan@db.example.net/sdwan",
    });
    expect((await run(["config", "use-context", "lab"])).code).toBe(0);
    expect(JSON.parse((await run(["config"])).stdout)).toMatchObject({
      context: { name: "lab" },
      storage: "lowdb",
      dataDir: join(configHome, "lab"),
      storeExists: false,
    });
    // As every command that works in a context, `config` takes --context.
    expect(
      JSON.parse(
        (
          await run(["config", "--context", "db"], {
            env: { LAB_DATABASE_URL: "postgres://sdwan:pw@db.example.net/sdwan" },
          })
        ).stdout,
      ),
    ).toMatchObject({ context: { name: "db" }, storage: "postgres" });
  });

  it("the admin doors say what the service refused in the command's own words (its options and arguments), once, and no --help for refused credentials", async () => {
    // A service that refuses every admin request's fields, or (for the token "sdw_refused…") its credentials.
    const refusing = createServer((request, response) => {
      const refusedToken = request.headers.authorization?.startsWith("Bearer sdw_refused") === true;
      const fields = request.url?.startsWith("/rest/plugin/sdwan/tokens") === true ? ["expiresInDays"] : ["verb"];
      response.statusCode = refusedToken ? 401 : 400;
      response.setHeader("content-type", "application/problem+json");
      response.end(
        JSON.stringify({
          type: `urn:sdwan-connections:problem:${refusedToken ? "unauthorized" : "invalid-input"}`,
          title: "refused",
          status: response.statusCode,
          detail: refusedToken ? "The service token was refused." : `${fields[0]}: must be something else`,
          ...(refusedToken ? {} : { errors: fields.map((field) => ({ field, message: "must be something else" })) }),
        }),
      );
    });
    servers.push(refusing);
    await new Promise<void>((resolve) => refusing.listen(0, "127.0.0.1", resolve));
    const env = {
      SDWAN_SERVER: `http://127.0.0.1:${(refusing.address() as { port: number }).port}`,
      SDWAN_TOKEN: "sdw_ok",
    };
    expect(await run(["tokens", "create", "ci", "--expires-in-days", "0"], { env })).toMatchObject({
      code: 2,
      stderr:
        "sdwan-connections: tokens create: --expires-in-days: must be something else; see 'sdwan-connections tokens create --help'\n",
    });
    expect(await run(["grants", "add", "group:a", "a-*", "fly"], { env })).toMatchObject({
      code: 2,
      stderr:
        "sdwan-connections: grants add: <verb>: must be something else; see 'sdwan-connections grants add --help'\n",
    });
    // What the command itself refuses is said once, after the command's name.
    expect(await run(["tokens", "create", "ci", "--expires-in-days", "3", "--grant", "bad"], { env })).toMatchObject({
      code: 2,
      stderr:
        "sdwan-connections: tokens create: --grant must be PATTERN:VERB or token:ci:PATTERN:VERB, not 'bad'; see 'sdwan-connections tokens create --help'\n",
    });
    // Credentials the service refuses name the context, as for the connections' commands: no option would help.
    expect(await run(["tokens", "list"], { env: { ...env, SDWAN_TOKEN: "sdw_refused_token_value_1" } })).toMatchObject({
      code: 2,
      stderr: "sdwan-connections: tokens list: context 'SDWAN_SERVER': The service token was refused.\n",
    });
  });
});
