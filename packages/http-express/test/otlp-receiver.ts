import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** One span as OTLP/JSON carries it, its attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly status: { readonly code?: number };
  /** The resource's attributes (service.name…). */
  readonly resource: Readonly<Record<string, unknown>>;
}

interface KeyValue {
  readonly key: string;
  readonly value: Record<string, unknown>;
}
interface ExportRequest {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: readonly KeyValue[] };
    readonly scopeSpans?: readonly {
      readonly spans?: readonly (Omit<ReceivedSpan, "attributes" | "resource"> & {
        readonly attributes?: readonly KeyValue[];
      })[];
    }[];
  }[];
}

// OTLP/JSON's AnyValue: one of stringValue, intValue (a string for 64 bits), boolValue, doubleValue…
const plain = (attributes: readonly KeyValue[] = []) =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, Object.values(value)[0]]));

/**
 * A collector's OTLP/HTTP traces endpoint on 127.0.0.1 (port 0): it decodes each JSON export request (gzip too) as
 * the exporter sends it, keeps the spans flattened, the raw bodies (for a grep of everything exported) and each
 * request's headers, and answers as a collector does (200, an empty partial success).
 */
export const startOtlpReceiver = async () => {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const refused: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const text = (req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8");
      if (req.method !== "POST" || req.url !== "/v1/traces" || req.headers["content-type"] !== "application/json") {
        refused.push(`${req.method} ${req.url} ${req.headers["content-type"]}`);
        res.writeHead(404).end();
        return;
      }
      headers.push(req.headers);
      bodies.push(text);
      for (const { resource, scopeSpans = [] } of (JSON.parse(text) as ExportRequest).resourceSpans ?? [])
        for (const scope of scopeSpans)
          for (const span of scope.spans ?? [])
            spans.push({ ...span, attributes: plain(span.attributes), resource: plain(resource?.attributes) });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** What OTEL_EXPORTER_OTLP_ENDPOINT names (the exporter adds /v1/traces). */
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    headers,
    refused,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
