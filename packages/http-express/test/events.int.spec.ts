import { performance } from "node:perf_hooks";
import { openService } from "@sdwan-connections/composition";
import { orchestratorUnreachable } from "@sdwan-connections/core";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it, vi } from "vitest";
import {
  anAddBody,
  BASE,
  captureLogs,
  client,
  startHarness,
  startWiredService,
  TEST_KEYS,
  testConfig,
  OPERATOR,
  testOrchestrator,
  VIEWER,
} from "./harness.js";
import { openEventStream, type EventStream } from "./sse-client.js";

const CONNECTIONS = `${BASE}/connections`;
const EVENTS = `${BASE}/events`;
const SOON = { timeout: 5_000, interval: 20 };
const kinds = (stream: EventStream) =>
  stream.events.map((event) =>
    event.event === "reset" ? "reset" : `${event.event} ${JSON.parse(event.data).subject as string}`,
  );

describe("GET /events (docs/interface.md, Events)", () => {
  it("streams each change and the health change a validation finds, live, as CloudEvents framed with id and type; never a key", async () => {
    const orchestrator = testOrchestrator();
    await using h = await startHarness({ orchestrator });
    // Any authenticated user may follow; no credentials is 401.
    expect((await fetch(`${h.service.url}${EVENTS}`)).status).toBe(401);
    await using stream = await openEventStream(`${h.service.url}${EVENTS}`, {
      user: VIEWER,
      headers: { "accept-encoding": "gzip, br" },
    });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    // Never compressed, whatever the client accepts.
    expect(stream.response.headers.get("content-encoding")).toBeNull();

    expect((await h.call("POST", CONNECTIONS, { body: anAddBody() })).status).toBe(200);
    expect((await h.call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey: TEST_KEYS.customer } })).status).toBe(200);
    expect((await h.call("GET", `${CONNECTIONS}/lab`)).status).toBe(200);
    orchestrator.failWith(TEST_KEYS.customer, orchestratorUnreachable("connection refused"));
    // Seen twice, one change: one event.
    expect((await h.call("GET", `${CONNECTIONS}/lab`)).json()).toMatchObject({ valid: false });
    expect((await h.call("GET", `${CONNECTIONS}/lab`)).json()).toMatchObject({ valid: false });
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`)).status).toBe(204);

    await vi.waitFor(() => expect(kinds(stream)).toHaveLength(5), SOON);
    expect(kinds(stream)).toEqual([
      "connection.added Lab",
      // The alias as first given, whatever case the path named it in (regression: the path's `lab`).
      "connection.updated Lab",
      "connection.health.changed Lab",
      "connection.health.changed Lab",
      "connection.deleted Lab",
    ]);
    const events = stream.cloudEvents();
    expect(events.map((event) => event.data)).toMatchObject([
      {},
      {},
      { from: "unknown", to: "valid", reason: null },
      { from: "valid", to: "unreachable", reason: "connection refused" },
      {},
    ]);
    const [added, updated] = events;
    expect(added).toMatchObject({
      specversion: "1.0",
      subject: "Lab",
      datacontenttype: "application/json",
      data: { fields: ["alias", "orchestratorUrl", "apiKey"], actor: "admin", forced: false },
    });
    expect(updated?.data["version"]).toBeGreaterThan(added?.data["version"] as number);
    expect(stream.events.map((event) => event.id)).toEqual(events.map((event) => event.id));
    // The event id is the audit id.
    const audit = (await h.call("GET", `${BASE}/audit?limit=1000`)).json<{ entries: { id: string }[] }>();
    for (const event of events) expect(audit.entries.map((entry) => entry.id)).toContain(event.id);
    expect(JSON.stringify(stream.events)).not.toContain(TEST_KEYS.partner);
    expect(JSON.stringify(stream.events)).not.toContain(TEST_KEYS.customer);
  });

  it("filters by type patterns and alias glob (any case); a bad filter or event id is 400, naming the option", async () => {
    await using h = await startHarness();
    await using health = await openEventStream(`${h.service.url}${EVENTS}?types=connection.health.*`);
    await using labs = await openEventStream(
      `${h.service.url}${EVENTS}?alias=LAB-*&types=connection.added,connection.deleted`,
    );
    for (const alias of ["lab-1", "prod", "Lab-2"])
      expect((await h.call("POST", CONNECTIONS, { body: anAddBody({ alias }) })).status).toBe(200);
    expect((await h.call("GET", `${CONNECTIONS}/prod`)).status).toBe(200);
    expect(
      (await h.call("PUT", `${CONNECTIONS}/lab-1`, { body: { orchestratorUrl: "https://moved.example.net" } })).status,
    ).toBe(200);
    expect((await h.call("DELETE", `${CONNECTIONS}/lab-1`)).status).toBe(204);
    await vi.waitFor(
      () =>
        expect(kinds(labs)).toEqual(["connection.added lab-1", "connection.added Lab-2", "connection.deleted lab-1"]),
      SOON,
    );
    expect(kinds(health)).toEqual(["connection.health.changed prod"]);
    for (const query of [
      "types=connection.nothing",
      "types=",
      "alias=lab%3F",
      "lastEventId=42",
      "types=connection.added&types=connection.deleted",
      "apiKey=pasted-secret",
    ]) {
      const reply = await h.call("GET", `${EVENTS}?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.text).not.toContain("pasted-secret");
    }
    // Each named as the client gave it: the header as the header (it was named as a query option none sent).
    expect((await h.call("GET", EVENTS, { headers: { "last-event-id": "not-an-id" } })).json()).toMatchObject({
      errors: [{ field: "Last-Event-ID" }],
    });
    expect((await h.call("GET", `${EVENTS}?lastEventId=not-an-id`)).json()).toMatchObject({
      errors: [{ field: "query.lastEventId" }],
    });
  });

  it("resumes after Last-Event-ID (header, or ?lastEventId=): what came after it, then live, no gap and no repeat at the seam", async () => {
    await using h = await startHarness();
    await using first = await openEventStream(`${h.service.url}${EVENTS}`);
    for (let i = 0; i < 5; i += 1)
      expect((await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: `c${i}` }) })).status).toBe(200);
    await vi.waitFor(() => expect(first.events).toHaveLength(5), SOON);
    const seen = first.events[1]?.id as string;
    await first.close();
    // Writes go on while the next streams connect: each event exactly once, in order, from the one after `seen`.
    const writing = (async () => {
      for (let i = 5; i < 25; i += 1) await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: `c${i}` }) });
    })();
    await using byHeader = await openEventStream(`${h.service.url}${EVENTS}`, { headers: { "last-event-id": seen } });
    await using byQuery = await openEventStream(`${h.service.url}${EVENTS}?lastEventId=${encodeURIComponent(seen)}`);
    await writing;
    const expected = Array.from({ length: 23 }, (_, i) => `connection.added c${i + 2}`);
    await vi.waitFor(() => expect(kinds(byHeader)).toEqual(expected), SOON);
    await vi.waitFor(() => expect(kinds(byQuery)).toEqual(expected), SOON);
  });

  it("answers `event: reset` to an id older than the oldest entry kept, then goes live", async () => {
    // The embedded store, which keeps what SDWAN_AUDIT_MAX_ENTRIES allows: the 3 newest changes.
    await using service = await startWiredService({ SDWAN_AUDIT_MAX_ENTRIES: "3" });
    const call = client(service.url);
    await using first = await openEventStream(`${service.url}${EVENTS}`);
    for (let i = 0; i < 5; i += 1)
      expect((await call("POST", CONNECTIONS, { body: anAddBody({ alias: `c${i}` }) })).status).toBe(200);
    await vi.waitFor(() => expect(first.events).toHaveLength(5), SOON);
    await using late = await openEventStream(`${service.url}${EVENTS}`, {
      headers: { "last-event-id": first.events[0]?.id as string },
    });
    await using kept = await openEventStream(`${service.url}${EVENTS}`, {
      headers: { "last-event-id": first.events[2]?.id as string },
    });
    expect((await call("DELETE", `${CONNECTIONS}/c0`)).status).toBe(204);
    await vi.waitFor(() => expect(kinds(late)).toEqual(["reset", "connection.deleted c0"]), SOON);
    expect(late.events[0]).toMatchObject({ id: undefined, event: "reset" });
    await vi.waitFor(
      () => expect(kinds(kept)).toEqual(["connection.added c3", "connection.added c4", "connection.deleted c0"]),
      SOON,
    );
  });

  it("sends a comment at least every SDWAN_EVENTS_HEARTBEAT_S seconds", async () => {
    await using h = await startHarness({ env: { SDWAN_EVENTS_HEARTBEAT_S: "1" } });
    await using stream = await openEventStream(`${h.service.url}${EVENTS}`);
    await vi.waitFor(
      () => expect(stream.comments.filter((comment) => comment === "heartbeat").length).toBeGreaterThanOrEqual(2),
      { timeout: 4_000, interval: 50 },
    );
  });

  it("serves at most SDWAN_EVENTS_MAX_STREAMS streams, then 429 with Retry-After; a closed stream frees its place", async () => {
    await using h = await startHarness({ env: { SDWAN_EVENTS_MAX_STREAMS: "2" } });
    // Two principals: one may hold only a tenth of them (at least one), see events-hostile.int.spec.ts.
    const open = [
      await openEventStream(`${h.service.url}${EVENTS}`),
      await openEventStream(`${h.service.url}${EVENTS}`, { user: VIEWER }),
    ];
    expect(open.map((stream) => stream.response.status)).toEqual([200, 200]);
    const refused = await h.call("GET", EVENTS, { user: OPERATOR });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    await open[0]?.close();
    await vi.waitFor(async () => {
      await using again = await openEventStream(`${h.service.url}${EVENTS}`);
      expect(again.response.status).toBe(200);
    }, SOON);
    await open[1]?.close();
  });

  it("a shutdown ends every stream first, so the drain is not held by them", async () => {
    const h = await startHarness({ service: { drainTimeoutMs: 30_000 } });
    const streams = await Promise.all(Array.from({ length: 3 }, () => openEventStream(`${h.service.url}${EVENTS}`)));
    const started = Date.now();
    await h[Symbol.asyncDispose]();
    expect(Date.now() - started).toBeLessThan(5_000);
    await vi.waitFor(() => expect(streams.map((stream) => stream.ended())).toEqual([true, true, true]), SOON);
  });

  it("on the embedded store (lowdb): the same events, and a change another opening of the data directory makes (the CLI's) reaches the stream within a second", async () => {
    await using service = await startWiredService();
    await using stream = await openEventStream(`${service.url}${EVENTS}`);
    const call = client(service.url);
    expect((await call("POST", CONNECTIONS, { body: anAddBody() })).status).toBe(200);
    expect((await call("DELETE", `${CONNECTIONS}/lab`)).status).toBe(204);
    await vi.waitFor(() => expect(kinds(stream)).toEqual(["connection.added Lab", "connection.deleted Lab"]), SOON);
    expect(stream.cloudEvents()[1]?.data["version"]).toBe(stream.cloudEvents()[0]?.data["version"]);
    // As the CLI opens it: the same directory, another store object (its own audit log), a forced add.
    const other = await openService(testConfig({ SDWAN_DATA_DIR: service.dir }), {
      orchestrator: testOrchestrator(),
      logDestination: captureLogs().stream,
    })();
    if (E.isLeft(other)) throw new Error(other.left.message);
    try {
      const written = performance.now();
      await other.right.service.connections.add(anAddBody({ alias: "from-cli" }), {
        force: true,
        by: { name: "cli:ops" },
      })();
      await vi.waitFor(() => expect(kinds(stream)).toContain("connection.added from-cli"), SOON);
      expect(stream.cloudEvents().at(-1)).toMatchObject({ data: { actor: "cli:ops", forced: true } });
      expect((stream.events.at(-1)?.at ?? Infinity) - written).toBeLessThan(1_000);
    } finally {
      await other.right.close();
    }
  });
});
