import { rm } from "node:fs/promises";
import { describe, expect, it, vi } from "vitest";
import { BASE, makeDataDir } from "./harness.js";
import { runMain } from "./main-process.js";
import { openEventStream } from "./sse-client.js";

const admin = { name: "admin", password: "admin-password-1" };

// A child process loads sources through tsx: slow to start on a busy machine.
describe("the service process and event streams", { timeout: 90_000 }, () => {
  it("SIGTERM ends every event stream first: the process exits 0 without waiting out the drain", async () => {
    const dir = await makeDataDir();
    const run = runMain({ SDWAN_DATA_DIR: dir, SDWAN_ADMIN_USER: admin.name, SDWAN_ADMIN_PASSWORD: admin.password });
    try {
      const url = await run.listening();
      const streams = await Promise.all(
        Array.from({ length: 3 }, () => openEventStream(`${url}${BASE}/events`, { user: admin })),
      );
      expect(streams.map((stream) => stream.response.status)).toEqual([200, 200, 200]);
      const stopped = Date.now();
      run.child.kill("SIGTERM");
      expect(await run.exited).toBe(0);
      // The drain waits up to 10 s for open connections: the streams were ended before it.
      expect(Date.now() - stopped).toBeLessThan(8_000);
      await vi.waitFor(() => expect(streams.map((stream) => stream.ended())).toEqual([true, true, true]), {
        timeout: 2_000,
      });
    } finally {
      if (run.child.exitCode === null) run.child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });
});
