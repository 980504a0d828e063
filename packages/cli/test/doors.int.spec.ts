import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_GROUP, AUDIENCE, CLIENT_ID, startDeviceProvider } from "./device-provider.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const README = join(PACKAGE_DIR, "README.md");
const ADMIN = { name: "admin", password: "admin-password-1" };
const TOKEN = /sdw_[A-Za-z0-9_-]{43}/g;
const SECRET = /whsec_[A-Za-z0-9+/=]+/g;

/** `src/main.ts` in a process of its own (sources through tsx), with only the environment given (and PATH). */
const sdwan = async (args: readonly string[], env: Record<string, string>) => {
  const started = start(args, env);
  const [code] = await once(started.child, "close");
  return { code: code as number, stdout: started.stdout(), stderr: started.stderr() };
};
const start = (args: readonly string[], env: Record<string, string>) => {
  const child = spawn(
    process.execPath,
    [
      "--conditions=sdwan-source",
      "--import",
      pathToFileURL(join(PACKAGE_DIR, "node_modules/tsx/dist/loader.mjs")).href,
      join(PACKAGE_DIR, "src/main.ts"),
      ...args,
    ],
    { cwd: PACKAGE_DIR, env: { PATH: process.env["PATH"] ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stdout: () => stdout, stderr: () => stderr };
};

/**
 * What the README shows of these doors, as the test ran them: each command and what it printed, the secrets
 * replaced by their form. Written to a temporary directory; `pnpm --filter @sdwan-connections/cli transcripts`
 * (SDWAN_TRANSCRIPTS=1) writes them into the README between their markers.
 */
const transcripts = new Map<string, string[]>();
const record = (name: string, command: string, output: { stdout: string; stderr: string }) =>
  transcripts.set(name, [
    ...(transcripts.get(name) ?? []),
    `$ ${command.replace(/http:\/\/127\.0\.0\.1:\d+/g, "http://127.0.0.1:8990")}`,
    `${output.stderr}${output.stdout}`
      .replace(TOKEN, "sdw_…")
      .replace(SECRET, "whsec_…")
      // The provider's pages, told apart from the service's.
      .replace(/http:\/\/127\.0\.0\.1:\d+\/device/g, "https://sso.example.net/device")
      .replace(/http:\/\/127\.0\.0\.1:\d+/g, "http://127.0.0.1:8990")
      .trimEnd(),
  ]);
const writeTranscripts = async (directory: string) => {
  await mkdir(directory, { recursive: true });
  let readme = await readFile(README, "utf8");
  for (const [name, lines] of transcripts) {
    const block = `\`\`\`text\n${lines.filter((line) => line !== "").join("\n")}\n\`\`\``;
    await writeFile(join(directory, `${name}.txt`), `${block}\n`);
    const start = `<!-- transcript:${name} -->`;
    const end = `<!-- /transcript:${name} -->`;
    const from = readme.indexOf(start);
    const to = readme.indexOf(end);
    if (from !== -1 && to > from) readme = `${readme.slice(0, from + start.length)}\n${block}\n${readme.slice(to)}`;
  }
  if (process.env["SDWAN_TRANSCRIPTS"] === "1") await writeFile(README, readme);
  else await writeFile(join(directory, "README.md"), readme);
};

/** A receiver on loopback: refuses (400) until told to take, then records each POST's webhook-id. */
const startReceiver = async () => {
  let taking = false;
  const taken: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    req.resume();
    req.on("end", () => {
      if (taking) taken.push(String(req.headers["webhook-id"]));
      res.writeHead(taking ? 204 : 400).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    taken,
    take: () => (taking = true),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
};

const waitFor = async <A>(check: () => Promise<A | undefined>, what: string): Promise<A> => {
  for (let i = 0; i < 200; i += 1) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not seen: ${what}`);
};

describe(
  "the CLI's doors to the service's admin API (tokens, grants, webhooks; SDWAN_SERVER and SDWAN_TOKEN)",
  { timeout: 180_000 },
  () => {
    let temporary: string;
    let service: ServiceProcess;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    // The admin's context: a configuration file naming the service and a password file.
    let admin: Record<string, string>;
    // Another process, with no configuration file at all (an empty configuration directory).
    let bare: Record<string, string>;

    beforeAll(async () => {
      temporary = await mkdtemp(join(tmpdir(), "sdwan-cli-doors-"));
      receiver = await startReceiver();
      service = await startServiceProcess({
        SDWAN_DATA_DIR: join(temporary, "data"),
        SDWAN_ADMIN_USER: ADMIN.name,
        SDWAN_ADMIN_PASSWORD: ADMIN.password,
        SDWAN_WEBHOOK_ALLOW_HTTP: "true",
        SDWAN_WEBHOOK_RETRY_S: "",
      });
      const configHome = join(temporary, "admin-config");
      await mkdir(join(configHome, "sdwan-connections"), { recursive: true });
      await writeFile(join(configHome, "admin.password"), `${ADMIN.password}\n`);
      await writeFile(
        join(configHome, "sdwan-connections", "config.yaml"),
        `current-context: prod\ncontexts:\n  - name: prod\n    server: ${service.url}\n    user: ${ADMIN.name}\n    password-file: ${join(configHome, "admin.password")}\n`,
      );
      admin = { XDG_CONFIG_HOME: configHome, HOME: temporary };
      bare = { XDG_CONFIG_HOME: join(temporary, "no-config"), HOME: temporary, SDWAN_SERVER: service.url };
    });

    afterAll(async () => {
      await writeTranscripts(join(temporary, "transcripts")).catch(() => undefined);
      await service?.stop();
      await receiver?.close();
      await rm(temporary, { recursive: true, force: true });
    });

    it("a token made with `tokens create` signs in another process by SDWAN_SERVER and SDWAN_TOKEN (or SDWAN_TOKEN_FILE), with no configuration file; printed once, never again", async () => {
      const created = await sdwan(
        ["tokens", "create", "ci", "--expires-in-days", "30", "--role", "admin", "-o", "table"],
        admin,
      );
      record("tokens", "sdwan-connections tokens create ci --expires-in-days 30 --role admin", created);
      expect(created.code).toBe(0);
      const [token] = created.stdout.match(TOKEN) ?? [];
      expect(token).toBeDefined();

      const listed = await sdwan(["tokens", "list", "-o", "table"], admin);
      record("tokens", "sdwan-connections tokens list", listed);
      expect(listed).toMatchObject({ code: 0 });
      expect(listed.stdout).toContain("ci");
      expect(listed.stdout).not.toContain(token);

      // Another process, no configuration file: the token from the environment.
      const viaEnv = await sdwan(["tokens", "list", "-o", "json"], { ...bare, SDWAN_TOKEN: token! });
      record(
        "tokens",
        "SDWAN_SERVER=http://127.0.0.1:8990 SDWAN_TOKEN=sdw_… sdwan-connections list",
        await sdwan(["list"], { ...bare, SDWAN_TOKEN: token! }),
      );
      expect(viaEnv.code).toBe(0);
      expect(JSON.parse(viaEnv.stdout)).toEqual([expect.objectContaining({ name: "ci", role: "admin" })]);
      const tokenFile = join(temporary, "ci.token");
      await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
      expect(await sdwan(["list", "-o", "json"], { ...bare, SDWAN_TOKEN_FILE: tokenFile })).toMatchObject({
        code: 0,
        stdout: "[]\n",
      });
      // No token: the service refuses, and says so naming where the context came from.
      const refused = await sdwan(["tokens", "list"], {
        ...bare,
        SDWAN_TOKEN: "sdw_not-a-real-token-of-this-service-at-all-000",
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("context 'SDWAN_SERVER'");
      expect(refused.stderr).not.toContain("sdw_not-a-real");

      const renewed = await sdwan(["tokens", "renew", "ci", "--overlap-hours", "0", "-o", "table"], admin);
      record("tokens", "sdwan-connections tokens renew ci --overlap-hours 0", renewed);
      const [fresh] = renewed.stdout.match(TOKEN) ?? [];
      expect(fresh).toBeDefined();
      expect(fresh).not.toBe(token);
      expect((await sdwan(["list"], { ...bare, SDWAN_TOKEN: token! })).code).toBe(2);
      expect((await sdwan(["list"], { ...bare, SDWAN_TOKEN: fresh! })).code).toBe(0);
      const revoked = await sdwan(["tokens", "revoke", "ci"], admin);
      record("tokens", "sdwan-connections tokens revoke ci", revoked);
      expect(revoked).toMatchObject({ code: 0, stdout: "Service token ci revoked.\n" });
      const afterRevoke = await sdwan(["list"], { ...bare, SDWAN_TOKEN: fresh! });
      expect(afterRevoke.code).toBe(2);
      expect(`${afterRevoke.stdout}${afterRevoke.stderr}`).not.toContain(fresh!.slice(4));
      expect(await sdwan(["tokens", "revoke", "ci"], admin)).toMatchObject({ code: 3 });
      // Never printed again, nor by the service's log.
      expect(`${listed.stdout}${listed.stderr}${service.output()}`).not.toContain(token!.slice(4));
    });

    it("grants: add, list, delete; a duplicate is a conflict (exit 4), an unknown id not found (exit 3)", async () => {
      const added = await sdwan(["grants", "add", "group:emea", "emea-*", "use", "-o", "table"], admin);
      record("grants", "sdwan-connections grants add group:emea 'emea-*' use", added);
      expect(added.code).toBe(0);
      expect(await sdwan(["grants", "add", "group:emea", "EMEA-*", "use"], admin)).toMatchObject({ code: 4 });
      // Bug: the service's refusal of an unknown verb said "<verb>: must be GrantVerb", the codec's name.
      expect(await sdwan(["grants", "add", "group:emea", "emea-*", "own"], admin)).toMatchObject({
        code: 2,
        stderr: expect.stringContaining("grants add: <verb>: must be one of read, use, manage;"),
      });
      const listed = await sdwan(["grants", "list", "-o", "table"], admin);
      record("grants", "sdwan-connections grants list", listed);
      const [grant] = JSON.parse((await sdwan(["grants", "list", "-o", "json"], admin)).stdout) as { id: string }[];
      const deleted = await sdwan(["grants", "delete", grant!.id], admin);
      record("grants", `sdwan-connections grants delete ${grant!.id}`, deleted);
      expect(deleted.code).toBe(0);
      expect(await sdwan(["grants", "delete", grant!.id], admin)).toMatchObject({ code: 3 });
    });

    it("webhooks: add (the secret once), a dead delivery listed by --status dead, redelivered with its webhook-id once the receiver takes it, ping, delete", async () => {
      const added = await sdwan(["webhooks", "add", receiver.url, "--types", "connection.*", "-o", "table"], admin);
      record("webhooks", `sdwan-connections webhooks add ${receiver.url} --types 'connection.*'`, added);
      expect(added.code).toBe(0);
      const [webhook] = JSON.parse((await sdwan(["webhooks", "list", "-o", "json"], admin)).stdout) as { id: string }[];
      record("webhooks", "sdwan-connections webhooks list", await sdwan(["webhooks", "list", "-o", "table"], admin));
      expect(
        (
          await service.call("POST", "/rest/plugin/sdwan/connections?force=true", {
            body: { alias: "lab", orchestratorUrl: "https://vco.example.net/", apiKey: "sample-partner-key-1" },
          })
        ).status,
      ).toBe(200);
      // Refused (400): dead at once, no retry.
      const dead = await waitFor(async () => {
        const listed = JSON.parse(
          (await sdwan(["webhooks", "deliveries", webhook!.id, "--status", "dead", "-o", "json"], admin)).stdout,
        ) as { id: string; eventId: string }[];
        return listed[0];
      }, "a dead delivery");
      record(
        "webhooks",
        `sdwan-connections webhooks deliveries ${webhook!.id} --status dead`,
        await sdwan(["webhooks", "deliveries", webhook!.id, "--status", "dead", "-o", "table"], admin),
      );
      // Not taken (400): said, and exit 10, so that `webhooks ping ID && …` stops there.
      expect(await sdwan(["webhooks", "ping", webhook!.id, "-o", "table"], admin)).toMatchObject({
        code: 10,
        stdout: expect.stringContaining("The receiver did not take the ping: HTTP 400"),
      });
      receiver.take();
      const redelivered = await sdwan(["webhooks", "redeliver", webhook!.id, dead.id, "-o", "table"], admin);
      record("webhooks", `sdwan-connections webhooks redeliver ${webhook!.id} ${dead.id}`, redelivered);
      expect(redelivered.code).toBe(0);
      await waitFor(async () => (receiver.taken.includes(dead.eventId) ? true : undefined), "the redelivery");
      const pinged = await sdwan(["webhooks", "ping", webhook!.id, "-o", "table"], admin);
      record("webhooks", `sdwan-connections webhooks ping ${webhook!.id}`, pinged);
      expect(pinged).toMatchObject({ code: 0, stdout: expect.stringContaining("HTTP 204") });
      expect(await sdwan(["webhooks", "redeliver", webhook!.id, "not-a-delivery"], admin)).toMatchObject({ code: 3 });
      expect(await sdwan(["webhooks", "delete", webhook!.id], admin)).toMatchObject({ code: 0 });
      expect(`${added.stdout}`).toMatch(SECRET);
    });

    // Issue 38: "`events --follow` reconnects silently".
    it("events --follow says on standard error when its stream ends and when it is back; standard output keeps only events", async () => {
      const free = createServer();
      free.listen(0, "127.0.0.1");
      await once(free, "listening");
      const port = String((free.address() as { port: number }).port);
      await new Promise((resolve) => free.close(resolve));
      const serviceEnv = {
        SDWAN_DATA_DIR: join(temporary, "follow-data"),
        SDWAN_ADMIN_USER: ADMIN.name,
        SDWAN_ADMIN_PASSWORD: ADMIN.password,
        SDWAN_PORT: port,
      };
      let followed = await startServiceProcess(serviceEnv);
      const configHome = join(temporary, "follow-config");
      await mkdir(join(configHome, "sdwan-connections"), { recursive: true });
      await writeFile(
        join(configHome, "sdwan-connections", "config.yaml"),
        `current-context: follow\ncontexts:\n  - name: follow\n    server: ${followed.url}\n    user: ${ADMIN.name}\n    password-file: ${join(temporary, "admin-config", "admin.password")}\n`,
      );
      const follow = start(["events", "--follow", "-o", "json"], { XDG_CONFIG_HOME: configHome, HOME: temporary });
      const add = (alias: string) =>
        followed.call("POST", "/rest/plugin/sdwan/connections?force=true", {
          body: { alias, orchestratorUrl: "https://vco.example.net/", apiKey: "sample-partner-key-1" },
        });
      // Added until one is printed: the stream is open (what came before it opened is not its to print).
      await waitFor(async () => {
        await add(`before-${Date.now()}`);
        return follow.stdout().includes('"before-') ? true : undefined;
      }, "an event followed");
      expect(follow.stderr()).toBe("");
      await followed.stop();
      await waitFor(async () => (follow.stderr().includes("reconnecting in") ? true : undefined), "the reconnect line");
      followed = await startServiceProcess(serviceEnv);
      await waitFor(
        async () => (follow.stderr().includes("reconnected to") ? true : undefined),
        "the reconnected line",
      );
      follow.child.kill("SIGINT");
      await once(follow.child, "close");
      await followed.stop();
      for (const line of follow.stdout().trim().split("\n")) expect(JSON.parse(line)).toHaveProperty("specversion");
      expect(follow.stderr()).toMatch(
        /events: the stream from http:\/\/127\.0\.0\.1:\d+ ended; reconnecting in \d+\.\d s/,
      );
    });

    it("refuses the admin commands in a local store's context, saying how to name a service", async () => {
      const local = await sdwan(["tokens", "list"], {
        XDG_CONFIG_HOME: join(temporary, "no-config"),
        HOME: temporary,
        SDWAN_DATA_DIR: temporary,
      });
      expect(local.code).toBe(2);
      expect(local.stderr).toContain("SDWAN_SERVER");
      expect(await sdwan(["tokens"], bare)).toMatchObject({
        code: 2,
        stderr: expect.stringContaining("create, list, renew, revoke"),
      });
    });
  },
);

describe("login: the device authorization grant with the service's OpenID provider", { timeout: 180_000 }, () => {
  it("signs in by a code approved at the provider, keeps only a refresh token (0600) and refreshes by itself; no token printed", async () => {
    const temporary = await mkdtemp(join(tmpdir(), "sdwan-cli-login-"));
    const provider = await startDeviceProvider();
    const service = await startServiceProcess({
      SDWAN_DATA_DIR: join(temporary, "data"),
      SDWAN_ADMIN_USER: ADMIN.name,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_OIDC_ISSUER: provider.issuer,
      SDWAN_OIDC_AUDIENCE: AUDIENCE,
      SDWAN_OIDC_CLIENT_ID: CLIENT_ID,
      SDWAN_OIDC_ADMIN_GROUPS: ADMIN_GROUP,
    });
    const env = { XDG_CONFIG_HOME: join(temporary, "config"), HOME: temporary };
    try {
      const signingIn = start(["login", "--server", service.url, "--context", "sso"], env);
      const url = await waitFor(
        async () => /\(or open (\S+)\)/.exec(signingIn.stderr())?.[1] ?? undefined,
        "the verification URL",
      );
      await provider.approve(url, "ann");
      const [code] = await once(signingIn.child, "close");
      const signedIn = { code: code as number, stdout: signingIn.stdout(), stderr: signingIn.stderr() };
      record("login", `sdwan-connections login --server ${service.url} --context sso`, signedIn);
      expect(signedIn).toMatchObject({ code: 0, stdout: expect.stringContaining("Signed in to") });
      expect(signedIn.stdout).toContain("as ann");
      const refreshFile = join(temporary, "config", "sdwan-connections", "sso.refresh-token");
      expect((await stat(refreshFile)).mode & 0o777).toBe(0o600);
      const refreshToken = (await readFile(refreshFile, "utf8")).trim();
      expect(await readFile(join(temporary, "config", "sdwan-connections", "config.yaml"), "utf8")).not.toContain(
        refreshToken,
      );
      // Each command gets a fresh access token with it: twice, the provider rotating it or not.
      const listed = await sdwan(["tokens", "list", "-o", "table"], env);
      record("login", "sdwan-connections tokens list", listed);
      expect(listed).toMatchObject({ code: 0, stdout: "No service tokens.\n" });
      expect(await sdwan(["list", "-o", "json"], env)).toMatchObject({ code: 0, stdout: "[]\n" });
      // The audit names the principal the provider's token proves.
      const created = await sdwan(["tokens", "create", "from-sso", "--expires-in-days", "1"], env);
      expect(created.code).toBe(0);
      expect(JSON.stringify((await service.call("GET", "/rest/plugin/sdwan/audit?limit=5")).json())).toContain(
        "oidc:ann",
      );
      for (const output of [signedIn, listed]) expect(`${output.stdout}${output.stderr}`).not.toContain(refreshToken);
      // A refresh token the provider no longer knows: sign in again, said without the token.
      await writeFile(refreshFile, "not-a-refresh-token\n");
      const expired = await sdwan(["list"], env);
      expect(expired.code).toBe(2);
      expect(expired.stderr).toContain("sign in again: sdwan-connections login --server");
      expect(expired.stderr).not.toContain("not-a-refresh-token");
    } finally {
      await service.stop();
      await provider.close();
      await writeTranscripts(join(temporary, "transcripts")).catch(() => undefined);
      await rm(temporary, { recursive: true, force: true });
    }
  });
});
