import type { Metrics } from "@sdwan-connections/composition";
import { Router } from "express";
import { BASE_PATH, openApiDocument } from "../openapi.js";
import { sendRepresentation } from "../representation.js";
import { sendJson } from "../respond.js";

export interface OperationsOptions {
  readonly metrics: Metrics;
  /** Whether the store answers now. */
  readonly ready: () => Promise<boolean>;
  /** True once shutdown began: `/readyz` then answers 503 so load balancers stop sending. */
  readonly draining: () => boolean;
}

/** docs/interface.md §7: health, readiness, metrics and the OpenAPI document; no credentials, nothing about connections. */
export const operationsRoutes = ({ metrics, ready, draining }: OperationsOptions): Router => {
  const router = Router();
  router.get("/healthz", (_req, res) => sendJson(res, 200, { status: "ok" }));
  router.get("/readyz", async (_req, res) => {
    const ok = !draining() && (await ready().catch(() => false));
    sendJson(res, ok ? 200 : 503, { status: ok ? "ready" : "not ready" });
  });
  router.get("/metrics", async (_req, res) => {
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.end(await metrics.registry.metrics());
  });
  router.get(`${BASE_PATH}/openapi.json`, (req, res) => sendRepresentation(req, res, openApiDocument, () => JSON.stringify(openApiDocument), "public, max-age=300"));
  return router;
};
