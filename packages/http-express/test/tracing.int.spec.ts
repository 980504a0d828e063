import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { loadSampleDataset, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import { startPostgres } from "@sdwan-connections/storage-postgres/testing";
import { describe, expect, it, vi } from "vitest";
import { ADMIN, BASE, basic, client, makeDataDir } from "./harness.js";
import { runMain } from "./main-process.js";
import { startOtlpReceiver, type ReceivedSpan } from "./otlp-receiver.js";
import { startWebhookReceiver } from "./webhook-receiver.js";

const PARTNER_KEY = "sample-partner-key-1";
// Sent to the collector by OTEL_EXPORTER_OTLP_HEADERS: it must reach the collector, never a span.
const COLLECTOR_TOKEN = "collector-secret-7f3a9c";
const SERVER = 2;
const CLIENT = 3;

/** The W3C traceparent's fields: version, trace id, parent (span) id, flags. */
const traceparentOf = (value: unknown) => {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/.exec(String(value));
  if (match === null) throw new Error(`not a traceparent: ${String(value)}`);
  return { traceId: match[1], parentId: match[2] };
};

/**
 * The real service process (`pnpm start`'s main, on the store `store.env` names) with the standard OTEL_* variables
 * pointing at an in-process OTLP/HTTP receiver, the orchestrator simulator behind its connections, and a webhook
 * receiver; `store.secrets` are searched for in what was exported too.
 */
const traceThrough = async (store: {
  readonly env: Record<string, string>;
  readonly system: string;
  readonly secrets: readonly string[];
}) => {
  await using collector = await startOtlpReceiver();
  await using receiver = await startWebhookReceiver({ tls: false });
  const simulator = await startOrchestratorSimulator({ data: await loadSampleDataset(), host: "127.0.0.1", port: 0 });
  const dir = await makeDataDir();
  const run = runMain({
    SDWAN_DATA_DIR: dir,
    ...store.env,
    SDWAN_ADMIN_USER: ADMIN.name,
    SDWAN_ADMIN_PASSWORD: ADMIN.password,
    SDWAN_WEBHOOK_ALLOW_HTTP: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
    OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${COLLECTOR_TOKEN}`,
    OTEL_SERVICE_NAME: "sdwan-under-test",
    OTEL_BSP_SCHEDULE_DELAY: "100",
    SDWAN_LOG_LEVEL: "info", // the request lines, which name their trace
  });
  try {
    const call = client(await run.listening());
    const hook = await call("POST", `${BASE}/webhooks`, { body: { url: receiver.url, types: ["connection.added"] } });
    expect(hook.status, hook.text).toBe(201);
    const webhookSecret = hook.json<{ secret: string }>().secret;
    receiver.useSecret(webhookSecret);
    const token = await call("POST", `${BASE}/tokens`, { body: { name: "ci", expiresInDays: 1, role: "admin" } });
    expect(token.status, token.text).toBe(201);
    const serviceToken = token.json<{ token: string }>().token;

    // The caller's own trace: the add joins it.
    const callerTrace = randomBytes(16).toString("hex");
    const callerSpan = randomBytes(8).toString("hex");
    const added = await call("POST", `${BASE}/connections`, {
      body: { alias: "traced", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
      headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` },
    });
    expect(added.status, added.text).toBe(200);
    const listed = await call("GET", `${BASE}/partner/traced/customers`, {
      user: null,
      headers: { authorization: `Bearer ${serviceToken}` },
    });
    expect(listed.status, listed.text).toBe(200);
    await vi.waitFor(() => expect(receiver.accepted).toHaveLength(1), { timeout: 30_000, interval: 100 });

    const named = (name: string) => (span: ReceivedSpan) => span.name === name;
    await vi.waitFor(
      () => {
        expect(collector.spans.some(named("POST /rest/plugin/sdwan/connections"))).toBe(true);
        expect(collector.spans.some(named("GET /rest/plugin/sdwan/partner/{alias}/customers"))).toBe(true);
        expect(collector.spans.some(named("POST webhook"))).toBe(true);
      },
      { timeout: 30_000, interval: 100 },
    );
    const { spans } = collector;
    const inTrace = (traceId: string) => spans.filter((span) => span.traceId === traceId);
    const childrenOf = (parent: ReceivedSpan) => spans.filter((span) => span.parentSpanId === parent.spanId);

    // The request: a server span in the caller's trace, its parent the caller's span, named by the route pattern.
    const request = spans.find(named("POST /rest/plugin/sdwan/connections"));
    expect(request).toMatchObject({
      traceId: callerTrace,
      parentSpanId: callerSpan,
      kind: SERVER,
      attributes: {
        "http.request.method": "POST",
        "http.route": "/rest/plugin/sdwan/connections",
        "http.response.status_code": 200,
      },
      resource: { "service.name": "sdwan-under-test" },
    });
    // Its store calls and its orchestrator call, in the same trace.
    const trace = inTrace(callerTrace);
    expect(trace.filter((span) => span.attributes["db.system.name"] === store.system).map(({ name }) => name)).toEqual(
      expect.arrayContaining(["repository.get", "repository.insert"]),
    );
    const identify = trace.find(named("orchestrator identify"));
    expect(identify?.attributes).toMatchObject({ "server.address": "127.0.0.1" });
    // Each HTTP attempt to the orchestrator a client span under it, and the simulator got its traceparent.
    const attempts = childrenOf(identify as ReceivedSpan).filter((span) => span.kind === CLIENT);
    expect(attempts.length).toBeGreaterThan(0);
    const sentToOrchestrator = simulator.requests
      .map(({ headers }) => headers["traceparent"])
      .filter((value) => value !== undefined)
      .map(traceparentOf)
      .filter(({ traceId }) => traceId === callerTrace);
    expect(sentToOrchestrator.map(({ parentId }) => parentId).sort()).toEqual(
      attempts.map(({ spanId }) => spanId).sort(),
    );

    // The request's log line names its trace, so a slow line in the logs leads to its trace.
    const lines = run
      .out()
      .split("\n")
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line) as { method: string; route: string; traceId?: string });
    expect(
      lines.find(({ method, route }) => method === "POST" && route === "/rest/plugin/sdwan/connections"),
    ).toMatchObject({ traceId: callerTrace });

    // A request without a traceparent starts a trace; the listing's orchestrator calls are in it.
    const listing = spans.find(named("GET /rest/plugin/sdwan/partner/{alias}/customers")) as ReceivedSpan;
    expect(listing.traceId).not.toBe(callerTrace);
    expect(listing.parentSpanId ?? "").toBe("");
    expect(inTrace(listing.traceId).map(({ name }) => name)).toEqual(
      expect.arrayContaining(["orchestrator listPartnerCustomers"]),
    );

    // The delivery: a client span, its traceparent received by the webhook receiver.
    const delivery = spans.find(named("POST webhook")) as ReceivedSpan;
    expect(delivery).toMatchObject({ kind: CLIENT, attributes: { "http.response.status_code": 200 } });
    expect(traceparentOf(receiver.accepted[0]?.headers["traceparent"])).toEqual({
      traceId: delivery.traceId,
      parentId: delivery.spanId,
    });

    // The collector's credentials reached it; nothing secret reached a span, anywhere in what was exported.
    expect(collector.headers.every((headers) => headers.authorization === `Bearer ${COLLECTOR_TOKEN}`)).toBe(true);
    const exported = collector.bodies.join("\n");
    for (const secret of [
      PARTNER_KEY,
      ADMIN.password,
      basic(ADMIN).slice("Basic ".length),
      webhookSecret,
      serviceToken,
      COLLECTOR_TOKEN,
      ...store.secrets,
    ])
      expect(exported.includes(secret), secret).toBe(false);
    // No body either: not the connection's fields, nor a customer's.
    expect(exported).not.toMatch(/"traced"|orchestratorUrl|apiKey|enterpriseId/);
    expect(collector.refused).toEqual([]);
  } finally {
    run.child.kill("SIGTERM");
    await run.exited;
    await simulator.stop();
    await rm(dir, { recursive: true, force: true });
  }
};

describe("OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT set)", () => {
  it("exports a span per request, store call, orchestrator call and webhook delivery, passes traceparent on, and no key, token, secret or body", async () => {
    await traceThrough({ env: {}, system: "lowdb", secrets: [] });
  }, 120_000);

  it("does the same on PostgreSQL, its store calls in the request's trace, and neither its password nor the master key", async () => {
    const postgres = await startPostgres({ label: "http-express-tracing" });
    try {
      const databaseUrl = await postgres.database("tracing");
      const masterKey = randomBytes(32).toString("base64");
      await traceThrough({
        env: { SDWAN_STORAGE: "postgres", SDWAN_DATABASE_URL: databaseUrl, SDWAN_MASTER_KEY: masterKey },
        system: "postgresql",
        secrets: [new URL(databaseUrl).password, masterKey],
      });
    } finally {
      await postgres.stop();
    }
  }, 180_000);
});
