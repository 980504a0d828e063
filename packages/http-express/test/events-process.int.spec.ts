import { readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { reportFigures } from "@sdwan-connections/bench-kit";
import type { Alias, AuditEntry } from "@sdwan-connections/core";
import { anAuditEntry } from "@sdwan-connections/core/testing";
import { describe, expect, it, vi } from "vitest";
import { basic, BASE, client, makeDataDir } from "./harness.js";
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

  it("issue 36 finding 0: a replay of 20,000 events to a client that stops reading never ends the process; /healthz answers meanwhile, and a reader that reads gets them all", async () => {
    const dir = await makeDataDir();
    const entries = trailOf(20_000);
    await writeFile(join(dir, "audit.jsonl"), entries.map(lineOf).join(""), { mode: 0o600 });
    const run = runMain({
      SDWAN_DATA_DIR: dir,
      SDWAN_ADMIN_USER: admin.name,
      SDWAN_ADMIN_PASSWORD: admin.password,
      SDWAN_AUDIT_MAX_ENTRIES: "30000",
    });
    try {
      const url = await run.listening();
      // A raw client that asks for everything after the first event, then never reads a byte.
      const stalled = connect(Number(new URL(url).port), "127.0.0.1");
      stalled.pause();
      stalled.write(
        `GET ${BASE}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basic(admin)}\r\nLast-Event-ID: ${entries[0]?.id}\r\n\r\n`,
      );
      const metric = async () =>
        /sdwan_event_streams\{state="replaying"\} (\d+)/.exec(await (await fetch(`${url}/metrics`)).text())?.[1];
      // Counted while it waits for the client to read.
      await vi.waitFor(async () => expect(await metric()).toBe("1"), { timeout: 10_000, interval: 100 });
      for (let i = 0; i < 5; i += 1) {
        expect((await fetch(`${url}/healthz`)).status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(run.child.exitCode).toBeNull();
      // A reader that reads gets every event after the first, once, in order.
      const reader = await openEventStream(`${url}${BASE}/events`, {
        user: admin,
        headers: { "last-event-id": entries[0]?.id as string },
      });
      await vi.waitFor(() => expect(reader.events.length).toBe(entries.length - 1), { timeout: 60_000, interval: 200 });
      expect(reader.events.map((event) => event.id)).toEqual(entries.slice(1).map((entry) => entry.id));
      await reader.close();
      stalled.destroy();
      // The client gone, its replay stops.
      await vi.waitFor(async () => expect(await metric()).toBe("0"), { timeout: 10_000, interval: 100 });
      expect(run.child.exitCode).toBeNull();
    } finally {
      if (run.child.exitCode === null) run.child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("issue 36 finding 1: 50 replays over 5,500 entries by three principals keep the resident memory bounded (goal: 100 MiB over idle) and /healthz answering", async () => {
    const dir = await makeDataDir();
    const entries = trailOf(5_500);
    await writeFile(join(dir, "audit.jsonl"), entries.map(lineOf).join(""), { mode: 0o600 });
    const run = runMain({ SDWAN_DATA_DIR: dir, SDWAN_ADMIN_USER: admin.name, SDWAN_ADMIN_PASSWORD: admin.password });
    try {
      const url = await run.listening();
      const call = client(url);
      const tokens = await Promise.all(
        ["a", "b", "c"].map(async (name) =>
          (
            await call("POST", `${BASE}/tokens`, { user: admin, body: { name, expiresInDays: 1, role: "viewer" } })
          ).json<{ token: string }>(),
        ),
      );
      // Idle: started, one stream open (the trail watched), nothing replaying.
      await using idleStream = await openEventStream(`${url}${BASE}/events`, { user: admin });
      expect(idleStream.response.status).toBe(200);
      const idle = await rssMiB(run.child.pid as number);
      let peak = idle;
      let slowestHealthz = 0;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await rssMiB(run.child.pid as number));
          const asked = performance.now();
          expect((await fetch(`${url}/healthz`)).status).toBe(200);
          slowestHealthz = Math.max(slowestHealthz, performance.now() - asked);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      const replays = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          openEventStream(`${url}${BASE}/events`, {
            headers: {
              authorization: `Bearer ${tokens[i % 3]?.token}`,
              "last-event-id": entries[0]?.id as string,
            },
          }),
        ),
      );
      expect(replays.map((stream) => stream.response.status)).toEqual(replays.map(() => 200));
      await vi.waitFor(
        () => expect(replays.filter((stream) => stream.events.length === entries.length - 1)).toHaveLength(50),
        { timeout: 120_000, interval: 200 },
      );
      sampling = false;
      await sampler;
      await Promise.all(replays.map((stream) => stream.close()));
      await reportFigures(
        "reliability:event-replays",
        [
          `50 replays of ${entries.length - 1} events by three principals (load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores):`,
          "",
          "| RSS idle | RSS peak | peak − idle | slowest `/healthz` |",
          "|---|---|---|---|",
          `| ${idle.toFixed(0)} MiB | ${peak.toFixed(0)} MiB | ${(peak - idle).toFixed(0)} MiB | ${slowestHealthz.toFixed(0)} ms |`,
        ].join("\n"),
      );
      // The goal is 100 MiB (docs/reliability.md has the figures measured); asserted with room for a loaded machine's GC.
      expect(peak - idle).toBeLessThan(150);
    } finally {
      if (run.child.exitCode === null) run.child.kill("SIGKILL");
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** `count` changes, one a millisecond, ending a minute ago: a trail as the embedded store writes it. */
const trailOf = (count: number): AuditEntry[] => {
  const start = Date.now() - 60_000 - count;
  return Array.from({ length: count }, (_, i) =>
    anAuditEntry({ at: new Date(start + i), action: "add", alias: `c${i % 500}` as Alias, fields: ["alias"] }),
  );
};
const lineOf = (entry: AuditEntry) => `${JSON.stringify({ ...entry, at: entry.at.toISOString() })}\n`;

/** Resident memory of a process, in MiB (Linux). */
const rssMiB = async (pid: number): Promise<number> => {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
};
