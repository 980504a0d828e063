import type { Metrics } from "@sdwan-connections/composition";
import { OperationStatus } from "@sdwan-connections/core/wire";
import type { RequestHandler, Router } from "express";
import { methodNotAllowed } from "../middleware/errors.js";
import { BASE_PATH, openApiDocument } from "../openapi.js";
import { sendRepresentation } from "../representation.js";
import { sendJson } from "../respond.js";

/** The operations endpoints, served at the root beside the API (§7). */
export const OPERATION_PATHS = {
  health: "/healthz",
  ready: "/readyz",
  metrics: "/metrics",
  openApi: `${BASE_PATH}/openapi.json`,
} as const;

export interface OperationsOptions {
  readonly metrics: Metrics;
  /** Whether the store answers now. */
  readonly ready: () => Promise<boolean>;
  /** True once shutdown began: `/readyz` then answers 503 so load balancers stop sending. */
  readonly draining: () => boolean;
}

/** docs/interface.md §7: health, readiness, metrics and the OpenAPI document; no credentials, nothing about connections. */
export const operationsRoutes = (router: Router, { metrics, ready, draining }: OperationsOptions): void => {
  // Each is read only: another method is 405 naming what is allowed, as on the API (not 404, nor the API's 401).
  const readOnly = (path: string, handler: RequestHandler) =>
    router.route(path).get(handler).all(methodNotAllowed("GET, HEAD"));
  readOnly(OPERATION_PATHS.health, (_req, res) => sendJson(res, 200, OperationStatus, { status: "ok" }));
  readOnly(OPERATION_PATHS.ready, async (_req, res) => {
    const ok = !draining() && (await ready().catch(() => false));
    sendJson(res, ok ? 200 : 503, OperationStatus, { status: ok ? "ready" : "not ready" });
  });
  readOnly(OPERATION_PATHS.metrics, async (_req, res) => {
    res.setHeader("Content-Type", metrics.registry.contentType);
    res.end(await metrics.registry.metrics());
  });
  readOnly(OPERATION_PATHS.openApi, (req, res) =>
    sendRepresentation(req, res, openApiDocument, () => JSON.stringify(openApiDocument), "public, max-age=300"),
  );
};
