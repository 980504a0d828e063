import { orchestratorUnreachable } from "@sdwan-connections/core";
import { describe, expect, it, vi } from "vitest";
import { anAddBody, BASE, client, startHarness, startWiredService, TEST_KEYS, testOrchestrator, VIEWER } from "./harness.js";
import { openEventStream, type EventStream } from "./sse-client.js";

const CONNECTIONS = `${BASE}/connections`;
const EVENTS = `${BASE}/events`;
const SOON = { timeout: 5_000, interval: 20 };
const kinds = (stream: EventStream) => stream.events.map((event) => (event.event === "reset" ? "reset" : `${event.event} ${JSON.parse(event.data).subject as string}`));

describe("GET /events (docs/interface.md, Events)", () => {
  it("streams each change and the health change a validation finds, live, as CloudEvents framed with id and type; never a key", async () => {
    const orchestrator = testOrchestrator();
    await using h = await startHarness({ orchestrator });
    // Any authenticated user may follow; no credentials is 401.
    expect((await fetch(`${h.service.url}${EVENTS}`)).status).toBe(401);
    await using stream = await openEventStream(`${h.service.url}${EVENTS}`, { user: VIEWER, headers: { "accept-encoding": "gzip, br" } });
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
    expect(kinds(stream)).toEqual(["connection.added Lab", "connection.updated lab", "connection.health.changed Lab", "connection.health.changed Lab", "connection.deleted lab"]);
    const events = stream.cloudEvents();
    expect(events.map((event) => event.data)).toMatchObject([{}, {}, { from: "unknown", to: "valid", reason: null }, { from: "valid", to: "unreachable", reason: "connection refused" }, {}]);
    const [added, updated] = events;
    expect(added).toMatchObject({ specversion: "1.0", subject: "Lab", datacontenttype: "application/json", data: { fields: ["alias", "orchestratorUrl", "apiKey"], actor: "admin", forced: false } });
    expect(updated?.data["version"]).toBeGreaterThan(added?.data["version"] as number);
    expect(stream.events.map((event) => event.id)).toEqual(events.map((event) => event.id));
    // The event id is the audit id.
    const audit = (await h.call("GET", `${BASE}/audit?limit=1000`)).json<{ entries: { id: string }[] }>();
    for (const event of events) expect(audit.entries.map((entry) => entry.id)).toContain(event.id);
    expect(JSON.stringify(stream.events)).not.toContain(TEST_KEYS.partner);
    expect(JSON.stringify(stream.events)).not.toContain(TEST_KEYS.customer);
  });
});
