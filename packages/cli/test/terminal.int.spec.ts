import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServiceProcess } from "@sdwan-connections/bench-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const PROMPT = "apiKey (hidden; Enter ends it): ";
const TYPED_KEY = "typed-secret-key-4711";

// tmux gives the CLI a real terminal, as a person at a keyboard: what is on the screen is read back with
// capture-pane. The test installs nothing: .ci/terminal.sh (run by the repository's test command) does.
const hasTmux = (() => {
  try {
    execFileSync("tmux", ["-V"]);
    return true;
  } catch {
    return false;
  }
})();

describe("the key prompt in a real terminal", { timeout: 120_000 }, () => {
  const socket = `sdwan-cli-test-${process.pid}`;
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  const screen = (session: string) => tmux("capture-pane", "-p", "-t", session);
  const waitFor = async (session: string, seen: (text: string) => boolean, what: string): Promise<string> => {
    for (let i = 0; i < 600; i += 1) {
      const text = screen(session);
      if (seen(text)) return text;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`never saw ${what} on the screen:\n${screen(session)}`);
  };
  let dataDir: string;
  let silent: Server;
  const held: Socket[] = [];

  // The CLI from its sources, in a tmux window 100 columns wide (or `columns`); its exit code printed after it.
  const start = (session: string, command: string, env = "", columns = 100) => {
    const cli = `${env} SDWAN_DATA_DIR=${dataDir} SDWAN_LOG_LEVEL=error SDWAN_ORCHESTRATOR_TIMEOUT_MS=3000 ${process.execPath} --conditions=sdwan-source --import tsx src/main.ts`;
    tmux(
      "new-session",
      "-d",
      "-s",
      session,
      "-x",
      String(columns),
      "-y",
      "20",
      "-c",
      PACKAGE_DIR,
      `${command.replace("CLI", cli)}; echo "EXIT=$?"; sleep 60`,
    );
  };

  beforeAll(async () => {
    if (!hasTmux)
      throw new Error(
        "tmux is missing: run `bash .ci/terminal.sh` (apt-get install tmux), as the repository's test command does",
      );
    dataDir = await mkdtemp(join(tmpdir(), "sdwan-cli-terminal-"));
    // An orchestrator that accepts connections and never answers: the CLI waits, and would draw its progress indicator.
    silent = createServer((connection) => held.push(connection));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  });

  afterAll(async () => {
    if (hasTmux) execFileSync("tmux", ["-L", socket, "kill-server"], { stdio: "ignore" });
    for (const connection of held) connection.destroy();
    await new Promise((resolve) => silent?.close(resolve));
    await rm(dataDir, { recursive: true, force: true });
  });

  it("reads the key with echo off, ends it with one Enter, and draws nothing over the prompt", async () => {
    const address = silent.address();
    const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}/`;
    start("typed", `CLI add lab ${url}`);
    await waitFor("typed", (text) => text.includes(PROMPT.trimEnd()), "the prompt");
    // Longer than the progress indicator's delay: nothing may draw while the key is read.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(screen("typed").trimEnd().split("\n").at(-1)).toBe(PROMPT.trimEnd());
    tmux("send-keys", "-t", "typed", "-l", TYPED_KEY);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(screen("typed")).not.toContain(TYPED_KEY);
    // One Enter, no Ctrl-D.
    tmux("send-keys", "-t", "typed", "Enter");
    const done = await waitFor("typed", (text) => text.includes("EXIT="), "the exit code");
    expect(done).not.toContain(TYPED_KEY);
    const lines = done.split("\n");
    // The prompt's line is still the prompt; the answer (the orchestrator never answered) comes below it.
    expect(lines.find((line) => line.startsWith("apiKey"))).toBe(PROMPT.trimEnd());
    expect(done).toMatch(/EXIT=6/);
  });

  // Bug: SIGTERM (or SIGINT from outside) at the key prompt ended the process on the prompt's line, and the shell's
  // prompt came after it on the same line.
  it("ends the prompt's line when a signal ends the process at the prompt, in 80 columns", async () => {
    for (const [signal, after] of [
      ["TERM", "EXIT=143"],
      ["INT", "EXIT=130"],
      // Ctrl-C typed: the prompt reads it (raw mode) and cancels.
      ["C-c", "sdwan-connections: cancelled"],
    ] as const) {
      const session = `signal-${signal}`;
      start(session, `CLI add lab https://vco.example.net/ --force`, "", 80);
      await waitFor(session, (text) => text.includes(PROMPT.trimEnd()), "the prompt");
      if (signal === "C-c") tmux("send-keys", "-t", session, "C-c");
      else {
        const shell = tmux("display-message", "-p", "-t", session, "#{pane_pid}").trim();
        const cli = execFileSync("pgrep", ["-P", shell], { encoding: "utf8" }).trim();
        execFileSync("kill", [`-${signal}`, cli]);
      }
      const done = await waitFor(session, (text) => text.includes("EXIT="), "the exit code");
      const lines = done.split("\n");
      const at = lines.findIndex((line) => line.startsWith("apiKey"));
      expect(lines[at], signal).toBe(PROMPT.trimEnd());
      expect(lines[at + 1], signal).toBe(after);
    }
  });

  it("adds with the key typed, then prints no prompt when the key is piped in", async () => {
    start("forced", `CLI add typed https://vco.example.net/ --force`);
    await waitFor("forced", (text) => text.includes(PROMPT.trimEnd()), "the prompt");
    tmux("send-keys", "-t", "forced", "-l", TYPED_KEY);
    tmux("send-keys", "-t", "forced", "Enter");
    const added = await waitFor("forced", (text) => text.includes("EXIT="), "the exit code");
    expect(added).toContain("Connection successfully added");
    expect(added).toContain("EXIT=0");
    expect(added).not.toContain(TYPED_KEY);

    start("piped", `echo ${TYPED_KEY} | CLI key-check typed`);
    const checked = await waitFor("piped", (text) => text.includes("EXIT="), "the exit code");
    expect(checked).not.toContain("apiKey (");
    expect(checked).toContain("The key matches the stored one.");
    expect(checked).toContain("EXIT=0");
  });

  it("events --follow through a service prints each event once on the screen across a restart of the service, and Ctrl-C ends it (exit 0)", async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const port = String((free.address() as { port: number }).port);
    await new Promise((resolve) => free.close(resolve));
    const serviceDir = await mkdtemp(join(tmpdir(), "sdwan-cli-terminal-service-"));
    const admin = { SDWAN_ADMIN_USER: "admin", SDWAN_ADMIN_PASSWORD: "admin-password-1" };
    const serviceEnv = { SDWAN_DATA_DIR: serviceDir, SDWAN_PORT: port, ...admin };
    let service = await startServiceProcess(serviceEnv);
    const configHome = join(serviceDir, "config");
    await mkdir(join(configHome, "sdwan-connections"), { recursive: true });
    await writeFile(join(configHome, "admin.password"), `${admin.SDWAN_ADMIN_PASSWORD}\n`);
    await writeFile(
      join(configHome, "sdwan-connections", "config.yaml"),
      `current-context: svc\ncontexts:\n  - name: svc\n    server: ${service.url}\n    user: admin\n    password-file: ${join(configHome, "admin.password")}\n`,
    );
    const add = (alias: string) =>
      service.call("POST", "/rest/plugin/sdwan/connections?force=true", {
        body: { alias, orchestratorUrl: "https://vco.example.net/", apiKey: "terminal-key-1" },
      });
    const shown = (alias: string) => (text: string) => text.includes(`connection.added  ${alias}`);
    try {
      await add("first");
      const [first] = (await service.call("GET", "/rest/plugin/sdwan/audit?limit=1")).json<{
        entries: { id: string }[];
      }>().entries;
      start("events", `CLI events --follow --since-id ${first?.id ?? ""}`, `XDG_CONFIG_HOME=${configHome}`);
      await add("before-restart");
      await waitFor("events", shown("before-restart"), "the event before the restart");
      await service.stop();
      service = await startServiceProcess(serviceEnv);
      await add("while-away");
      await waitFor("events", shown("while-away"), "the event written while the CLI was away");
      tmux("send-keys", "-t", "events", "C-c");
      const done = await waitFor("events", (text) => text.includes("EXIT="), "the exit code");
      expect(done.split("connection.added  before-restart")).toHaveLength(2);
      expect(done.split("connection.added  while-away")).toHaveLength(2);
      expect(done).not.toContain("connection.added  first");
      expect(done).toContain("EXIT=0");
    } finally {
      await service.stop();
      await rm(serviceDir, { recursive: true, force: true });
    }
  });
});
