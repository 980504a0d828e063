import { SpanKind } from "@opentelemetry/api";
import type { ReadableSpan, SpanExporter } from "@opentelemetry/sdk-trace";
import { createInMemoryStorage, type WebhookRequest } from "@sdwan-connections/core";
import type { FetchLike } from "@sdwan-connections/orchestrator-portal";
import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import type { TracingConfig } from "./config.js";
import { openTracing } from "./tracing.js";

const CONFIG: TracingConfig = {
  endpoint: "http://127.0.0.1:9/v1/traces",
  headers: () => ({}),
  timeoutMs: 1000,
  compression: "none",
  resource: { "service.name": "unit" },
  sampler: { name: "parentbased_always_on", ratio: 1 },
  batchDelayMs: 10,
};
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** A tracing whose spans are kept here (`spans()` after `shutdown`, which sends what waits) and whose warnings are counted. */
const openForTest = (exportResult: 0 | 1 = 0) => {
  const exported: ReadableSpan[] = [];
  const warnings: string[] = [];
  const exporter: SpanExporter = {
    export: (spans, done) => {
      exported.push(...spans);
      done(exportResult === 0 ? { code: 0 } : { code: 1, error: new Error("collector said 503") });
    },
    shutdown: async () => undefined,
  };
  const quiet = () => undefined;
  const tracing = openTracing(CONFIG, {
    logger: { info: quiet, error: quiet, warn: (_fields, message) => warnings.push(message) },
    exporter,
  });
  return {
    tracing,
    warnings,
    spans: async () => {
      await tracing.shutdown();
      return exported;
    },
  };
};

/** Runs `work` inside a server span for a request, as the REST driver's middleware does. */
const inRequest = (tracing: ReturnType<typeof openForTest>["tracing"], work: () => Promise<unknown>, headers = {}) =>
  new Promise<void>((resolve, reject) =>
    tracing.serveRequest("GET", headers, (end) => {
      work().then(() => {
        end("/rest/plugin/sdwan/connections", 200);
        resolve();
      }, reject);
    }),
  );

describe("openTracing", () => {
  it("makes a store call a child of the request's span, and none outside a span (the relay's idle polls)", async () => {
    const { tracing, spans } = openForTest();
    const storage = tracing.traceStorage(createInMemoryStorage(), "lowdb");
    await storage.repository.list()();
    await storage.changes.publish("lab" as never);
    await inRequest(tracing, async () => {
      await storage.repository.get("absent" as never)();
      await storage.changes.publish("absent" as never);
    });
    const [get, publish, request, ...rest] = await spans();
    expect(rest).toEqual([]);
    expect(publish).toMatchObject({ name: "changes.publish", attributes: { "db.operation.name": "changes.publish" } });
    expect(publish?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(request).toMatchObject({ name: "GET /rest/plugin/sdwan/connections", kind: SpanKind.SERVER });
    expect(get).toMatchObject({
      name: "repository.get",
      kind: SpanKind.CLIENT,
      attributes: { "db.system.name": "lowdb", "db.operation.name": "repository.get", "error.type": "NotFound" },
    });
    expect(get?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
  });

  it("leaves a port's other members working on the port itself (subscriptions, synchronous calls)", async () => {
    const { tracing } = openForTest();
    const storage = tracing.traceStorage(createInMemoryStorage(), "postgres");
    const heard: unknown[] = [];
    const unsubscribe = storage.grants.subscribe(() => heard.push("grants"));
    await storage.grants.add({ id: "g1", subject: "token:ci", pattern: "lab-*", verb: "read" } as never)();
    expect(heard).toEqual(["grants"]);
    unsubscribe();
    expect(typeof storage.fingerprints.fingerprint("lab" as never, { reveal: () => "k" } as never)).toBe("string");
    await tracing.shutdown();
  });

  it("joins the caller's traceparent, names an unknown method _OTHER and marks a 5xx", async () => {
    const { tracing, spans } = openForTest();
    const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    await inRequest(tracing, async () => undefined, { traceparent: parent });
    await new Promise<void>((resolve) =>
      tracing.serveRequest("BREW", {}, (end) => {
        end("unmatched", 503);
        resolve();
      }),
    );
    const [joined, other] = await spans();
    expect(joined?.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(joined?.parentSpanContext).toMatchObject({ spanId: "b7ad6b7169203331", isRemote: true });
    expect(other).toMatchObject({ name: "_OTHER unmatched", attributes: { "error.type": "503" }, status: { code: 2 } });
  });

  it("sends each orchestrator attempt's traceparent naming its own span, its other headers as they were and out of the span", async () => {
    const { tracing, spans } = openForTest();
    const sent: Record<string, string>[] = [];
    const fetch: FetchLike = async (_url, init) => {
      sent.push(init.headers);
      return { status: 200, headers: { get: () => null }, arrayBuffer: async () => new ArrayBuffer(0) };
    };
    const traced = tracing.traceFetch(fetch);
    await inRequest(tracing, () =>
      traced("https://vco.example.net:8443/portal/rest/enterpriseProxy/getEnterpriseProxyProperty", {
        method: "POST",
        headers: { authorization: "Token secret-key-1" },
        body: "{}",
        signal: new AbortController().signal,
        redirect: "manual",
        agent: () => undefined as never,
        size: 0,
      }),
    );
    const [attempt, request] = await spans();
    expect(sent[0]?.["authorization"]).toBe("Token secret-key-1");
    const [, traceId, parentId] = TRACEPARENT.exec(sent[0]?.["traceparent"] ?? "") ?? [];
    expect({ traceId, parentId }).toEqual({
      traceId: request?.spanContext().traceId,
      parentId: attempt?.spanContext().spanId,
    });
    expect(attempt).toMatchObject({
      name: "POST",
      kind: SpanKind.CLIENT,
      attributes: { "server.address": "vco.example.net", "server.port": 8443, "http.response.status_code": 200 },
    });
    expect(JSON.stringify(attempt?.attributes)).not.toMatch(/secret-key-1|portal|enterpriseProxy/);
  });

  it("gives each webhook POST a trace of its own, even when a request's span is active, and its traceparent", async () => {
    const { tracing, spans } = openForTest();
    const sent: WebhookRequest[] = [];
    const sender = tracing.traceWebhookSender({
      send: async (request) => {
        sent.push(request);
        return { _tag: "failed", error: "ECONNREFUSED" };
      },
    });
    const request: WebhookRequest = {
      url: "https://hooks.example.net/in?token=s3cr3t",
      body: '{"secret":"s3cr3t"}',
      headers: { "webhook-signature": "v1,s3cr3t" },
    };
    await inRequest(tracing, () => sender.send(request, 1000));
    const [delivery, outer] = await spans();
    expect(delivery?.spanContext().traceId).not.toBe(outer?.spanContext().traceId);
    expect(delivery?.parentSpanContext).toBeUndefined();
    expect(delivery).toMatchObject({
      name: "POST webhook",
      attributes: { "server.address": "hooks.example.net", "server.port": 443, "error.type": "ECONNREFUSED" },
    });
    expect(TRACEPARENT.exec(sent[0]?.headers["traceparent"] ?? "")?.[2]).toBe(delivery?.spanContext().spanId);
    expect(sent[0]?.headers["webhook-signature"]).toBe("v1,s3cr3t");
    expect(JSON.stringify(delivery?.attributes)).not.toContain("s3cr3t");
  });

  it("says once that the collector refused spans, not at every batch", async () => {
    const { tracing, spans, warnings } = openForTest(1);
    const storage = tracing.traceStorage(createInMemoryStorage(), "lowdb");
    await inRequest(tracing, () => storage.repository.list()());
    await new Promise((resolve) => setTimeout(resolve, 50));
    await inRequest(tracing, () => storage.repository.list()());
    expect(await spans()).toHaveLength(4);
    expect(warnings).toEqual(["traces not exported"]);
    expect(E.isRight(await storage.repository.list()())).toBe(true);
  });
});
