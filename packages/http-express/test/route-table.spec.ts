import { createLogger } from "@sdwan-connections/composition";
import { createMetrics } from "@sdwan-connections/composition/metrics";
import type { Core } from "@sdwan-connections/core";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { routeLabel } from "../src/middleware/request-context.js";
import { BASE_PATH, openApiDocument } from "../src/openapi.js";
import { OPERATION_PATHS } from "../src/routes/operations.js";

interface Layer {
  readonly route?: { readonly path: string };
  readonly handle: { readonly stack?: readonly Layer[] };
}

// Every route path the app's routers declare (express's own layers), in the OpenAPI document's spelling.
const routesOf = (stack: readonly Layer[]): string[] =>
  stack.flatMap((layer) =>
    layer.route !== undefined ? [layer.route.path.replace(/:(\w+)/g, "{$1}")] : routesOf(layer.handle.stack ?? []),
  );

describe("one route table: the OpenAPI document", () => {
  it("the app serves exactly the documented API paths and the operations endpoints", () => {
    const app = createApp({
      service: {} as Core,
      logger: createLogger("silent"),
      metrics: createMetrics(),
      auth: undefined,
      ready: () => Promise.resolve(true),
    });
    const served = routesOf((app as unknown as { router: { stack: readonly Layer[] } }).router.stack);
    expect(served.sort()).toEqual([...Object.keys(openApiDocument.paths), ...Object.values(OPERATION_PATHS)].sort());
  });

  it("labels requests by their documented pattern, never by the alias", () => {
    expect(routeLabel(`${BASE_PATH}/connections/secret-alias`)).toBe(`${BASE_PATH}/connections/{alias}`);
    expect(routeLabel(`${BASE_PATH}/connections/lab/key-check/`)).toBe(`${BASE_PATH}/connections/{alias}/key-check`);
    expect(routeLabel(`${BASE_PATH}/partner/lab/customers`)).toBe(`${BASE_PATH}/partner/{alias}/customers`);
    expect(routeLabel(`${BASE_PATH}/openapi.json`)).toBe(`${BASE_PATH}/openapi.json`);
    expect(routeLabel("/console/assets/app.js")).toBe("/console");
    expect(routeLabel("/readyz")).toBe("/readyz");
    expect(routeLabel(`${BASE_PATH}/connections/a/b/c`)).toBe("unmatched");
    expect(routeLabel("/consoleX")).toBe("unmatched");
  });
});
