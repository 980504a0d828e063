import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { loadSampleDataset, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { describe, expect, it, vi } from "vitest";
import { BASE, client, makeDataDir } from "./harness.js";
import { runMain } from "./main-process.js";

const kill = (child: ChildProcess) => {
  if (child.exitCode === null) child.kill("SIGKILL");
};

// Child processes load sources through tsx and hash a bcrypt password at cost 12: slow on a busy CI machine.
describe("the service process (main.ts)", { timeout: 90_000 }, () => {
  it("stops a start with a bad variable with one line naming it, exit code 2", async () => {
    const run = runMain({ SDWAN_PORT: "eighty" });
    expect(await run.exited).toBe(2);
    expect(run.err()).toBe("sdwan-connections: SDWAN_PORT: must be an integer from 0 to 65535\n");
  });

  it("a taken port stops the start with one line, exit code 2", async () => {
    const { createServer } = await import("node:net");
    const blocker = createServer().listen(0, "127.0.0.1");
    await once(blocker, "listening");
    const dir = await makeDataDir();
    try {
      const port = (blocker.address() as { port: number }).port;
      const run = runMain({
        SDWAN_DATA_DIR: dir,
        SDWAN_PORT: String(port),
        SDWAN_ADMIN_USER: "admin",
        SDWAN_ADMIN_PASSWORD: "admin-password-1",
      });
      expect(await run.exited).toBe(2);
      expect(run.err()).toBe(
        `sdwan-connections: SDWAN_HOST/SDWAN_PORT: cannot listen on 127.0.0.1:${port} (EADDRINUSE)\n`,
      );
    } finally {
      blocker.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  // Issue 38 (first contact): the password scrolled away above the logs; now it is the last thing a first start prints.
  it("first start: the generated admin's password is the last thing printed, after the logs and the listening line", async () => {
    const dir = join(await makeDataDir(), "data");
    const run = runMain({ SDWAN_DATA_DIR: dir, SDWAN_LOG_LEVEL: "info" });
    try {
      await run.listening();
      await vi.waitFor(() => expect(run.out()).toContain("this password is shown only now."), { timeout: 10_000 });
      const lines = run
        .out()
        .split("\n")
        .filter((line) => line.trim() !== "");
      const listening = lines.findIndex((line) => line.startsWith("sdwan-connections listening on "));
      const logged = lines.findLastIndex((line) => line.startsWith("{"));
      const password = lines.findIndex((line) => /^ {2}password: \S+$/.test(line));
      expect(logged).toBeGreaterThanOrEqual(0);
      expect(listening).toBeGreaterThan(logged);
      expect(password).toBeGreaterThan(listening);
      expect(lines.at(-1)).toMatch(/this password is shown only now\.$/);
    } finally {
      kill(run.child);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("first start: prints the generated admin once; SIGTERM drains an in-flight request, then exits 0", async () => {
    // A data directory that does not exist yet: the first start creates it, private (regression: it was 0755).
    const dir = join(await makeDataDir(), "data");
    await using simulator = await startOrchestratorSimulator({
      data: await loadSampleDataset(),
      host: "127.0.0.1",
      port: 0,
    });
    const run = runMain({ SDWAN_DATA_DIR: dir });
    let admin = { name: "admin", password: "" };
    try {
      const url = await run.listening();
      const password = /password: (\S+)/.exec(run.out())?.[1];
      expect(password).toBeDefined();
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      admin = { name: "admin", password: password ?? "" };
      const call = client(url);
      const added = await call("POST", `${BASE}/connections`, {
        user: admin,
        body: { alias: "slow", orchestratorUrl: simulator.url, apiKey: "sample-partner-key-1" },
      });
      expect(added.status).toBe(200);

      simulator.setFault("sample-partner-key-1", { kind: "delay", ms: 700 });
      const inFlight = call("GET", `${BASE}/connections/slow`, { user: admin });
      await new Promise((resolve) => setTimeout(resolve, 200));
      run.child.kill("SIGTERM");
      const reply = await inFlight;
      expect(reply.status).toBe(200);
      expect(reply.json()).toMatchObject({ valid: true });
      expect(await run.exited).toBe(0);
      expect(run.out()).not.toContain("sample-partner-key-1");
    } finally {
      kill(run.child);
    }

    // Second start on the same data directory: no new password, the connection is still there.
    const again = runMain({ SDWAN_DATA_DIR: dir });
    try {
      const url = await again.listening();
      expect(again.out()).not.toContain("password:");
      expect(again.out()).toContain("Users: the admin generated at the first start, `admin`");
      expect((await client(url)("GET", `${BASE}/connections`, { user: admin })).json()).toEqual([
        { alias: "slow", orchestratorUrl: simulator.url },
      ]);
    } finally {
      again.child.kill("SIGINT");
      expect(await again.exited).toBe(0);
      await rm(dir, { recursive: true, force: true });
    }
  });

  // Regression: the handler was registered with process.once, so during the drain proper-lockfile's signal-exit (loaded
  // at the first lock, after the handler on a restart) was the last SIGTERM listener and re-raised the signal: exit 143.
  it(
    "restarted over its data directory, a SIGTERM twice during the drain still answers the in-flight request, then exits 0",
    { timeout: 180_000 },
    async () => {
      const dir = await makeDataDir();
      const admin = { name: "admin", password: "admin-password-1" };
      const env = { SDWAN_DATA_DIR: dir, SDWAN_ADMIN_USER: admin.name, SDWAN_ADMIN_PASSWORD: admin.password };
      await using simulator = await startOrchestratorSimulator({
        data: await loadSampleDataset(),
        host: "127.0.0.1",
        port: 0,
      });
      simulator.setFault("sample-partner-key-1", { kind: "delay", ms: 1_000 });
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      // A quick validation (its health is written, so the store takes its lock), then a slow one cut by `signals` SIGTERMs.
      const drainAfterAWrite = async (run: ReturnType<typeof runMain>, signals: number) => {
        const call = client(await run.listening());
        expect((await call("GET", `${BASE}/connections/fast`, { user: admin })).json()).toMatchObject({ valid: true });
        const asked = simulator.calls.total;
        const inFlight = call("GET", `${BASE}/connections/slow`, { user: admin });
        inFlight.catch(() => undefined); // awaited below, after the signals
        // In flight once the service has asked the (slow) orchestrator.
        for (let i = 0; i < 200 && simulator.calls.total === asked; i += 1) await pause(50);
        for (let i = 0; i < signals; i += 1) {
          run.child.kill("SIGTERM");
          await pause(100); // apart, or the kernel delivers the two as one
        }
        expect((await inFlight).json()).toMatchObject({ valid: true });
        expect(await run.exited).toBe(0);
      };
      const first = runMain(env);
      let second: ReturnType<typeof runMain> | undefined;
      try {
        const call = client(await first.listening());
        for (const [alias, apiKey] of [
          ["slow", "sample-partner-key-1"],
          ["fast", "sample-partner-key-2"],
        ]) {
          const added = await call("POST", `${BASE}/connections?force=true`, {
            user: admin,
            body: { alias, orchestratorUrl: simulator.url, apiKey },
          });
          expect(added.status).toBe(200);
        }
        await drainAfterAWrite(first, 1);
        second = runMain(env);
        await drainAfterAWrite(second, 2);
      } finally {
        kill(first.child);
        if (second !== undefined) kill(second.child);
        await rm(dir, { recursive: true, force: true });
      }
    },
  );
});
