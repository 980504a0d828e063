import { spawn } from "node:child_process";
import { once } from "node:events";
import { rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { makeDataDir } from "./harness.js";

const REPOSITORY_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

// The README's first command as an operator runs it: the root `pnpm start` (a build, then the service), stopped
// with Ctrl-C, which a terminal sends to the whole process group. Needs pnpm on PATH, as .ci/run installs it.
describe("the root `pnpm start`", { timeout: 240_000 }, () => {
  it("says it is building before the build, and a Ctrl-C stops it with exit code 0 and no package manager's error", async () => {
    const dir = await makeDataDir();
    const child = spawn("pnpm", ["start"], {
      cwd: REPOSITORY_ROOT,
      env: {
        PATH: process.env["PATH"] ?? "",
        HOME: process.env["HOME"] ?? "",
        SDWAN_DATA_DIR: dir,
        SDWAN_PORT: "0",
        SDWAN_LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, "exit").then(([code]) => code as number | null);
    try {
      for (let i = 0; i < 2000 && !output.includes("listening on http://") && child.exitCode === null; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(output, output).toContain("listening on http://");
      expect(output.indexOf("sdwan-connections: building what changed")).toBeGreaterThanOrEqual(0);
      expect(output.indexOf("sdwan-connections: building what changed")).toBeLessThan(output.indexOf("turbo"));
      process.kill(-child.pid!, "SIGINT");
      expect(await exited).toBe(0);
      expect(output).not.toMatch(/ELIFECYCLE|Command failed/);
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });
});
