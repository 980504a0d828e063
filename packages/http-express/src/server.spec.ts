import { once } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { describe, expect, it } from "vitest";
import { serverFor } from "./server.js";

describe("serverFor", () => {
  const app = express();
  app.get("/hello", (req, res) => {
    res.status(201).json({ host: req.get("host") === undefined ? "none" : "given", path: req.path });
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
});
