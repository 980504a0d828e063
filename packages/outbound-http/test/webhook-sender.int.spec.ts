import { once } from "node:events";
import { createServer, type RequestListener, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createTestCertificates } from "@sdwan-connections/orchestrator-simulator";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createWebhookSender } from "../src/index.js";

const servers: Server[] = [];
const listening = async (server: Server, scheme = "http"): Promise<string> => {
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
};
const receiver = (listener: RequestListener) => listening(createServer(listener));
afterEach(() => {
  for (const server of servers.splice(0)) server.close().closeAllConnections();
});

const request = (url: string) => ({
  url,
  headers: { "content-type": "application/json", "webhook-id": "evt-1" },
  body: JSON.stringify({ hello: "wörld" }),
});

describe("the webhook sender", () => {
  const sender = createWebhookSender({ allowHttp: "any" });
  afterAll(() => sender.close());

  it("POSTs the body with its headers and answers the status, never following a redirect", async () => {
    const seen: { method: string | undefined; headers: Record<string, unknown>; body: string }[] = [];
    const url = await receiver((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => (body += chunk));
      req.on("end", () => {
        seen.push({ method: req.method, headers: req.headers, body });
        res.writeHead(seen.length === 1 ? 204 : 302, { location: "http://127.0.0.1:1/elsewhere" }).end("ignored");
      });
    });
    expect(await sender.send(request(url), 2_000)).toEqual({ _tag: "answered", status: 204, retryAfterMs: null });
    expect(await sender.send(request(url), 2_000)).toEqual({ _tag: "answered", status: 302, retryAfterMs: null });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({
      method: "POST",
      headers: { "content-type": "application/json", "webhook-id": "evt-1" },
      body: '{"hello":"wörld"}',
    });
  });

  it("reads Retry-After", async () => {
    const url = await receiver((_req, res) => res.writeHead(429, { "retry-after": "7" }).end());
    expect(await sender.send(request(url), 2_000)).toEqual({ _tag: "answered", status: 429, retryAfterMs: 7_000 });
  });

  it("gives up at the timeout, also on an answer whose body never ends", async () => {
    const silent = await receiver(() => undefined);
    const started = Date.now();
    expect(await sender.send(request(silent), 300)).toEqual({ _tag: "failed", error: "timeout" });
    expect(Date.now() - started).toBeLessThan(2_000);
    const endless = await receiver((_req, res) => res.writeHead(200).write("never ends"));
    expect(await sender.send(request(endless), 300)).toMatchObject({ _tag: "failed" });
  });

  it("fails on a refused connection and on a connection cut in the middle of the answer", async () => {
    expect(await sender.send(request("http://127.0.0.1:1/hook"), 2_000)).toEqual({
      _tag: "failed",
      error: "ECONNREFUSED",
    });
    const cut = await receiver((_req, res) => {
      res.writeHead(200, { "content-length": "100" }).write("partial");
      setTimeout(() => res.destroy(), 20);
    });
    expect(await sender.send(request(cut), 2_000)).toMatchObject({ _tag: "failed" });
  });

  it("refuses fenced destinations and plain http unless allowed, sending nothing", async () => {
    expect(await sender.send(request("http://169.254.169.254/latest"), 2_000)).toEqual({
      _tag: "failed",
      error: "refused destination",
    });
    expect(await createWebhookSender().send(request("http://127.0.0.1:1/hook"), 2_000)).toEqual({
      _tag: "failed",
      error: "refused destination",
    });
  });

  it("verifies TLS: a receiver certified by a given CA is trusted, another one refused", async () => {
    const certificates = createTestCertificates();
    const url = await listening(
      createTlsServer({ key: certificates.key, cert: certificates.cert }, (_req, res) => res.writeHead(200).end()),
      "https",
    );
    const trusting = createWebhookSender({ ca: [certificates.caCert] });
    try {
      expect(await trusting.send(request(url), 2_000)).toMatchObject({ _tag: "answered", status: 200 });
      expect(await sender.send(request(url), 2_000)).toMatchObject({ _tag: "failed" });
    } finally {
      trusting.close();
    }
  });
});
