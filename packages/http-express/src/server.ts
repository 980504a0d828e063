import { createServer, IncomingMessage, ServerResponse, type Server } from "node:http";
import type { Socket } from "node:net";
import type { Express } from "express";

/**
 * The app's HTTP server. Its requests and responses are made with express's prototypes (`app.request`,
 * `app.response`) from the start, so that express, which sets them on every request, changes nothing. Set on node's
 * own objects, a prototype gives each request and response a map of its own kind, and when a collection finds none
 * alive (between requests, at a low rate), V8 drops the maps and deoptimizes the code built for them: the request
 * path was compiled again and again (a warm customers answer at 60 a second: 13% of the service's CPU in the
 * optimizing compiler).
 */
export const serverFor = (app: Express): Server => {
  // Node's own way to extend them (they are functions, not classes): each object made as the function's, its
  // prototype the function's `prototype`.
  function Request(this: IncomingMessage, socket: Socket): void {
    Reflect.apply(IncomingMessage, this, [socket]);
  }
  function Response(this: ServerResponse, req: IncomingMessage, options: unknown): void {
    Reflect.apply(ServerResponse, this, [req, options]);
  }
  Request.prototype = app.request;
  Response.prototype = app.response;
  const server = createServer(
    {
      IncomingMessage: Request as unknown as typeof IncomingMessage,
      ServerResponse: Response as unknown as typeof ServerResponse,
    },
    app,
  );
  // `Expect: 100-continue`: the client is told to send its body when the app reads it, not before (node's default), so
  // that a request refused before its body is read (413 by its Content-Length, 401, 415) does not invite the upload.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    req.once("resume", () => {
      if (!res.headersSent) res.writeContinue();
    });
    server.emit("request", req, res);
  });
  return server;
};
