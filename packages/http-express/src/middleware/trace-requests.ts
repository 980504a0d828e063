import type { Tracing } from "@sdwan-connections/composition";
import type { RequestHandler } from "express";
import { routeLabel } from "./request-context.js";

/**
 * Each request a server span (mounted only when traces are on: with them off, no middleware at all), joining the
 * caller's trace when it sent a `traceparent`. The rest of the request runs inside it, so the store's and the
 * orchestrator's spans are its children; it is named by the route pattern, never the path (an alias is in it).
 */
export const traceRequests =
  (tracing: Tracing): RequestHandler =>
  (req, res, next) => {
    const path = req.path; // before routers rewrite it
    tracing.serveRequest(req.method, req.headers, (end, traceId) => {
      res.locals["traceId"] = traceId; // the request's log line names its trace
      // "close" comes after "finish", and alone when the client went away first.
      res.on("close", () => end(routeLabel(path), res.statusCode));
      next();
    });
  };
