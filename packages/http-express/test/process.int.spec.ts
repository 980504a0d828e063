import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { loadSampleDataset, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { describe, expect, it } from "vitest";
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
      const run = runMain({ SDWAN_DATA_DIR: dir, SDWAN_PORT: String(port), SDWAN_ADMIN_USER: "admin", SDWAN_ADMIN_PASSWORD: "admin-password-1" });
      expect(await run.exited).toBe(2);
      expect(run.err()).toBe(`sdwan-connections: SDWAN_HOST/SDWAN_PORT: cannot listen on 127.0.0.1:${port} (EADDRINUSE)\n`);
    } finally {
      blocker.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("first start: prints the generated admin once; SIGTERM drains an in-flight request, then exits 0", async () => {
    // A data directory that does not exist yet: the first start creates it, private (regression: it was 0755).
    const dir = join(await makeDataDir(), "data");
    await using simulator = await startOrchestratorSimulator({ data: await loadSampleDataset(), host: "127.0.0.1", port: 0 });
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
      expect((await client(url)("GET", `${BASE}/connections`, { user: admin })).json()).toEqual([
        { alias: "slow", orchestratorUrl: simulator.url },
      ]);
    } finally {
      again.child.kill("SIGINT");
      expect(await again.exited).toBe(0);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
