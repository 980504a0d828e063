import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { performance } from "node:perf_hooks";
import { percentile, reportFigures } from "@sdwan-connections/bench-kit";
import { startPostgres, type StartedPostgres } from "@sdwan-connections/storage-postgres/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { anAddBody, BASE, client, makeDataDir, startWiredService } from "./harness.js";
import { runMain } from "./main-process.js";
import { openEventStream, type EventStream } from "./sse-client.js";

const EVENTS = `${BASE}/events`;
const CONNECTIONS = `${BASE}/connections`;
const STREAMS = 200;
const WRITES = 40;
const masterKey = randomBytes(32).toString("base64");
const admin = { name: "admin", password: "admin-password-1" };

let postgres: StartedPostgres;
beforeAll(async () => {
  postgres = await startPostgres({ label: "http-express-events" });
});
afterAll(async () => {
  await postgres?.stop();
});

const onPostgres = (databaseUrl: string) => ({
  SDWAN_STORAGE: "postgres",
  SDWAN_DATABASE_URL: databaseUrl,
  SDWAN_MASTER_KEY: masterKey,
});

/** Resident memory of a process, in MiB (Linux). */
const rssMiB = async (pid: number): Promise<number> => {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
};

describe("events across instances on one PostgreSQL database", { timeout: 180_000 }, () => {
  it("an event written on instance A reaches a stream on instance B within a second, with the same id as on A", async () => {
    const databaseUrl = await postgres.database("events_fan_out");
    await using a = await startWiredService(onPostgres(databaseUrl));
    await using b = await startWiredService(onPostgres(databaseUrl));
    await using onA = await openEventStream(`${a.url}${EVENTS}`);
    await using onB = await openEventStream(`${b.url}${EVENTS}?types=connection.added,connection.deleted`);
    const call = client(a.url);
    const answered: number[] = [];
    for (const [method, path, body] of [
      ["POST", CONNECTIONS, anAddBody()],
      ["PUT", `${CONNECTIONS}/lab`, { orchestratorUrl: "https://moved.example.net" }],
      ["DELETE", `${CONNECTIONS}/lab`, undefined],
    ] as const) {
      expect((await call(method, path, body === undefined ? {} : { body })).status).toBeLessThan(300);
      answered.push(performance.now());
    }
    await vi.waitFor(
      () => expect(onB.events.map((event) => event.event)).toEqual(["connection.added", "connection.deleted"]),
      { timeout: 3_000, interval: 10 },
    );
    await vi.waitFor(() => expect(onA.events).toHaveLength(3), { timeout: 3_000, interval: 10 });
    expect(onB.events.map((event) => event.id)).toEqual([onA.events[0]?.id, onA.events[2]?.id]);
    expect((onB.events[0]?.at as number) - (answered[0] as number)).toBeLessThan(1_000);
    expect((onB.events[1]?.at as number) - (answered[2] as number)).toBeLessThan(1_000);
  });

  it(`${STREAMS} open streams on instance B (its own process) while instance A writes: every event reaches every stream once; memory and latency measured`, async () => {
    const databaseUrl = await postgres.database("events_pressure");
    const dir = await makeDataDir();
    const b = runMain({
      SDWAN_DATA_DIR: dir,
      SDWAN_ADMIN_USER: admin.name,
      SDWAN_ADMIN_PASSWORD: admin.password,
      ...onPostgres(databaseUrl),
    });
    const streams: EventStream[] = [];
    try {
      await using a = await startWiredService({
        ...onPostgres(databaseUrl),
        SDWAN_ADMIN_USER: admin.name,
        SDWAN_ADMIN_PASSWORD: admin.password,
      });
      const bUrl = await b.listening();
      const pid = b.child.pid as number;
      // Warmed up: one stream, one event, then the baseline.
      const warm = await openEventStream(`${bUrl}${EVENTS}`, { user: admin });
      expect((await client(a.url)("POST", CONNECTIONS, { body: anAddBody({ alias: "warm-up" }) })).status).toBe(200);
      await vi.waitFor(() => expect(warm.events).toHaveLength(1), { timeout: 5_000 });
      await warm.close();
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Ten principals (viewer tokens made on A), as a principal holds at most a tenth of the streams.
      const tokens: string[] = [];
      for (let i = 0; i < 10; i += 1) {
        const made = await client(a.url)("POST", `${BASE}/tokens`, {
          user: admin,
          body: { name: `reader-${i}`, expiresInDays: 1, role: "viewer" },
        });
        tokens.push(made.json<{ token: string }>().token);
      }
      const before = await rssMiB(pid);
      for (let i = 0; i < STREAMS; i += 1)
        streams.push(
          await openEventStream(`${bUrl}${EVENTS}`, {
            headers: { authorization: `Bearer ${tokens[i % tokens.length]}` },
          }),
        );
      expect(streams.every((stream) => stream.response.status === 200)).toBe(true);
      // The cap (SDWAN_EVENTS_MAX_STREAMS, default 200) is reached: one more is refused.
      expect(
        (
          await fetch(`${bUrl}${EVENTS}`, {
            headers: { authorization: `Basic ${Buffer.from(`${admin.name}:${admin.password}`).toString("base64")}` },
          })
        ).status,
      ).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const idle = await rssMiB(pid);

      const call = client(a.url);
      const answeredAt = new Map<string, number>();
      const writeMs: number[] = [];
      for (let i = 0; i < WRITES; i += 1) {
        const started = performance.now();
        expect((await call("POST", CONNECTIONS, { user: admin, body: anAddBody({ alias: `p${i}` }) })).status).toBe(
          200,
        );
        answeredAt.set(`p${i}`, performance.now());
        writeMs.push(performance.now() - started);
      }
      await vi.waitFor(() => expect(streams.every((stream) => stream.events.length === WRITES)).toBe(true), {
        timeout: 20_000,
        interval: 50,
      });
      const loaded = await rssMiB(pid);
      const latencies = streams.flatMap((stream) => {
        const subjects = stream.cloudEvents().map((event) => event.subject);
        expect(subjects).toEqual(Array.from({ length: WRITES }, (_, i) => `p${i}`));
        return stream.events.map((event, i) => event.at - (answeredAt.get(`p${i}`) as number));
      });
      const ms = (value: number) => `${Math.round(value * 10) / 10} ms`;
      const figures = [
        `Last run: instance B in its own process with ${STREAMS} open streams (the default cap; the next was refused 429), instance A writing ${WRITES} adds one after another, both on one PostgreSQL database (load average ${(await readFile("/proc/loadavg", "utf8")).split(" ")[0]} on 2 cores).`,
        "",
        `- B's resident memory: ${before.toFixed(1)} MiB before the streams, ${idle.toFixed(1)} MiB with ${STREAMS} idle streams (+${(idle - before).toFixed(1)} MiB, ${(((idle - before) * 1024) / STREAMS).toFixed(1)} KiB each), ${loaded.toFixed(1)} MiB after the writes.`,
        `- Every event reached every stream once, in order: ${STREAMS * WRITES} deliveries.`,
        `- From A's answer to the event on B's streams: p50 ${ms(percentile(latencies, 0.5))}, p99 ${ms(percentile(latencies, 0.99))}, max ${ms(Math.max(...latencies))} (A's add itself: p50 ${ms(percentile(writeMs, 0.5))}).`,
      ].join("\n");
      // Latency is a figure here, not an assertion: this process also runs instance A and the 200 clients (the
      // one-second promise is asserted above, one stream on an instance of its own).
      await reportFigures("reliability:event-streams", figures);
    } finally {
      await Promise.all(streams.map((stream) => stream.close()));
      b.child.kill("SIGTERM");
      await b.exited;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
