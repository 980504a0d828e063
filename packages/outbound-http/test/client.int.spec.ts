import { once } from "node:events";
import { createServer, type RequestListener, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createTestCertificates } from "@sdwan-connections/orchestrator-simulator";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createOutboundClient } from "../src/index.js";

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
  const sender = createOutboundClient({ allowHttp: "any" });
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
    // Its reason says how to admit one (as the orchestrator's does: one fence, one allowlist).
    expect(sender.admits("https://169.254.169.254/latest")).toMatchObject({
      left: {
        errors: [{ message: expect.stringMatching(/: refused unless SDWAN_ORCHESTRATOR_ALLOWED_HOSTS names it$/) }],
      },
    });
    expect(await sender.send(request("http://169.254.169.254/latest"), 2_000)).toEqual({
      _tag: "failed",
      error: "refused destination",
    });
    expect(await createOutboundClient().send(request("http://127.0.0.1:1/hook"), 2_000)).toEqual({
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
    const trusting = createOutboundClient({ ca: [certificates.caCert] });
    try {
      expect(await trusting.send(request(url), 2_000)).toMatchObject({ _tag: "answered", status: 200 });
      expect(await sender.send(request(url), 2_000)).toMatchObject({ _tag: "failed" });
    } finally {
      trusting.close();
    }
  });
});

describe("the client's fetch (the OpenID provider's documents)", () => {
  const client = createOutboundClient();
  afterAll(() => client.close());

  it("GETs with the headers given and answers the status and the body, never following a redirect", async () => {
    const seen: Record<string, unknown>[] = [];
    const url = await receiver((req, res) => {
      seen.push({ method: req.method, accept: req.headers.accept });
      if (seen.length === 1) res.writeHead(200, { "content-type": "application/json" }).end('{"keys":[]}');
      else res.writeHead(302, { location: "http://127.0.0.1:1/elsewhere" }).end();
    });
    const answer = await client.fetch(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(2_000),
    });
    expect([answer.status, await answer.json()]).toEqual([200, { keys: [] }]);
    expect((await client.fetch(url, { signal: AbortSignal.timeout(2_000) })).status).toBe(302);
    expect(seen).toEqual([
      { method: "GET", accept: "application/json" },
      { method: "GET", accept: undefined },
    ]);
  });

  it("is ended by its signal, and refuses a fenced destination (a name once resolved, an address at once)", async () => {
    const silent = await receiver(() => undefined);
    await expect(client.fetch(silent, { signal: AbortSignal.timeout(100) })).rejects.toMatchObject({
      name: "AbortError",
    });
    await expect(
      client.fetch("http://169.254.169.254/latest", { signal: AbortSignal.timeout(2_000) }),
    ).rejects.toMatchObject({ code: "EFENCED" });
    await expect(
      client.fetch("http://metadata.google.internal/x", { signal: AbortSignal.timeout(2_000) }),
    ).rejects.toMatchObject({ code: "EFENCED" });
  });

  it("verifies TLS with the CAs given", async () => {
    const certificates = createTestCertificates();
    const url = await listening(
      createTlsServer({ key: certificates.key, cert: certificates.cert }, (_req, res) => res.writeHead(200).end("{}")),
      "https",
    );
    const trusting = createOutboundClient({ ca: [certificates.caCert] });
    try {
      expect((await trusting.fetch(url, { signal: AbortSignal.timeout(2_000) })).status).toBe(200);
      await expect(client.fetch(url, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    } finally {
      trusting.close();
    }
  });
});
