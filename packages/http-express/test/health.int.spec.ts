import { orchestratorUnreachable } from "@sdwan-connections/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anAddBody, BASE, startHarness, TEST_KEYS, testOrchestrator, VIEWER, type Harness } from "./harness.js";

const CONNECTIONS = `${BASE}/connections`;
const orchestrator = testOrchestrator();
let h: Harness;
let quiet: Harness;

beforeAll(async () => {
  h = await startHarness({ orchestrator, env: { SDWAN_HEALTH_INTERVAL_S: "3600" } });
  quiet = await startHarness();
});
afterAll(async () => {
  await h[Symbol.asyncDispose]();
  await quiet[Symbol.asyncDispose]();
});

interface Health {
  intervalSeconds: number | null;
  connections: {
    alias: string;
    state: string;
    since: string | null;
    checks: { outcome: string; latencyMs: number; reason: string | null }[];
  }[];
}

describe("background health over HTTP (docs/interface.md §1)", () => {
  it("answers each connection's state, since when and its last checks; /metrics counts states without aliases; changes are audited and logged", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    await h.call("POST", `${CONNECTIONS}?force=true`, {
      body: anAddBody({ alias: "revoked", apiKey: TEST_KEYS.refused }),
    });
    await h.call("POST", `${CONNECTIONS}?force=true`, {
      body: anAddBody({ alias: "far", apiKey: TEST_KEYS.customer }),
    });
    orchestrator.failWith(
      TEST_KEYS.customer,
      orchestratorUnreachable("Could not connect to the orchestrator for identify."),
    );
    const before = (await h.call("GET", `${BASE}/health/connections`, { user: VIEWER })).json<Health>();
    expect(before).toEqual({
      intervalSeconds: 3600,
      connections: ["far", "Lab", "revoked"].map((alias) => ({ alias, state: "unknown", since: null, checks: [] })),
    });

    // One round now, as the next interval would run it.
    await h.service.composition.service.health.monitor?.round();
    const after = (await h.call("GET", `${BASE}/health/connections`)).json<Health>();
    expect(after.connections.map(({ alias, state }) => [alias, state])).toEqual([
      ["far", "unreachable"],
      ["Lab", "valid"],
      ["revoked", "invalid"],
    ]);
    expect(after.connections[0]?.checks).toEqual([
      {
        at: expect.any(String),
        outcome: "unreachable",
        latencyMs: expect.any(Number),
        reason: "Could not connect to the orchestrator for identify.",
      },
    ]);

    const metrics = (await h.call("GET", "/metrics", { user: null })).text;
    expect(metrics).toContain('sdwan_connections_health{state="valid"} 1');
    expect(metrics).toContain('sdwan_connections_health{state="unreachable"} 1');
    expect(metrics).not.toMatch(/sdwan_connections_health\{[^}]*alias/);

    const audit = (await h.call("GET", `${BASE}/audit?alias=far`)).json<{
      entries: { action: string; actor: string; detail: string | null }[];
    }>();
    expect(audit.entries[0]).toMatchObject({
      action: "health-change",
      actor: "health-monitor",
      detail: "unknown → unreachable: Could not connect to the orchestrator for identify.",
    });
    expect(h.logs.entries().filter((entry) => entry["msg"] === "connection health changed")).toHaveLength(3);
  });

  it("is off by default: every state unknown, no interval", async () => {
    await quiet.call("POST", CONNECTIONS, { body: anAddBody() });
    expect(quiet.service.composition.service.health.monitor).toBeUndefined();
    expect((await quiet.call("GET", `${BASE}/health/connections`)).json<Health>()).toEqual({
      intervalSeconds: null,
      connections: [{ alias: "Lab", state: "unknown", since: null, checks: [] }],
    });
  });
});
