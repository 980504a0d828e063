import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { serverFor } from "./server.js";

describe("serverFor", () => {
  const app = express();
  app.get("/hello", (req, res) => {
    res.status(201).json({ host: req.get("host") === undefined ? "none" : "given", path: req.path });
  });
  // As the service's body limit does: a body too large by its Content-Length is refused before it is read.
  app.post("/echo", (req, res, next) => {
    if (Number(req.get("content-length")) > 1000) res.status(413).set("connection", "close").end();
    else next();
  });
  app.post("/echo", express.text({ type: "*/*" }), (req, res) => {
    res.send(req.body as string);
  });
  const server = serverFor(app);

  it("makes each request and response with the app's prototypes, before express sets them, and serves as express does", async () => {
    // Seen before the app runs: what node made, not what express set.
    const made: [object | null, object | null][] = [];
    server.prependListener("request", (req: IncomingMessage, res: ServerResponse) =>
      made.push([Object.getPrototypeOf(req) as object | null, Object.getPrototypeOf(res) as object | null]),
    );
    await once(server.listen(0, "127.0.0.1"), "listening");
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hello`;
      const answers = await Promise.all([fetch(url), fetch(url), fetch(url, { method: "HEAD" })]);
      expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
      expect(await answers[0]?.json()).toEqual({ host: "given", path: "/hello" });
      expect(await answers[2]?.text()).toBe("");
      expect(made).toEqual([
        [app.request, app.response],
        [app.request, app.response],
        [app.request, app.response],
      ]);
    } finally {
      server.close();
    }
  });

  it("tells a client that expects 100-continue to send its body only when the app reads it", async () => {
    await once(server.listen(0, "127.0.0.1"), "listening");
    const { port } = server.address() as AddressInfo;
    // The first status line the server writes, and with `body` sent once it said 100, what it answers then.
    const exchange = async (length: number, body: string) => {
      const socket = connect(port, "127.0.0.1");
      let received = "";
      socket.on("data", (chunk: Buffer) => {
        received += chunk.toString();
        if (received.startsWith("HTTP/1.1 100 Continue\r\n\r\n") && body !== "") {
          socket.write(body);
          body = "";
        }
      });
      socket.write(
        `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      );
      await once(socket, "close");
      return received.split("\r\n").filter((line) => line.startsWith("HTTP/1.1 "));
    };
    try {
      // Regression: node's own 100 Continue came first, inviting 2 MB that nobody would read.
      expect(await exchange(2_000_000, "")).toEqual(["HTTP/1.1 413 Payload Too Large"]);
      expect(await exchange(5, "hello")).toEqual(["HTTP/1.1 100 Continue", "HTTP/1.1 200 OK"]);
    } finally {
      server.close();
    }
  });
});
