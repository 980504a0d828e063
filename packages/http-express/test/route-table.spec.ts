import { createLogger } from "@sdwan-connections/composition";
import { createMetrics } from "@sdwan-connections/composition/metrics";
import type { Core } from "@sdwan-connections/core";
import { describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { routeLabel } from "../src/middleware/request-context.js";
import { BASE_PATH, openApiDocument } from "../src/openapi.js";
import { OPERATION_PATHS } from "../src/routes/operations.js";

interface Layer {
  readonly route?: { readonly path: string; readonly stack: readonly Layer[] };
  readonly method?: string;
  readonly handle: { readonly name: string; readonly stack?: readonly Layer[] };
}

// Every route path the app's routers declare (express's own layers), in the OpenAPI document's spelling.
const routesOf = (stack: readonly Layer[]): string[] =>
  stack.flatMap((layer) =>
    layer.route !== undefined ? [layer.route.path.replace(/:(\w+)/g, "{$1}")] : routesOf(layer.handle.stack ?? []),
  );

// Every route layer, nested routers walked.
const routeLayersOf = (stack: readonly Layer[]): Layer[] =>
  stack.flatMap((layer) => (layer.route !== undefined ? [layer] : routeLayersOf(layer.handle.stack ?? [])));

const anApp = () =>
  createApp({
    service: {} as Core,
    logger: createLogger("silent"),
    metrics: createMetrics(),
    auth: undefined,
    ready: () => Promise.resolve(true),
  });

describe("one route table: the OpenAPI document", () => {
  // Issue 37: authorize.ts once kept a second routing table of path regexes; a route now says what it needs.
  it("every API route, each of its methods and its 405, declares its need first (but GET /auth/config, before the credentials)", () => {
    const api = routeLayersOf((anApp() as unknown as { router: { stack: readonly Layer[] } }).router.stack).filter(
      ({ route }) =>
        route !== undefined &&
        route.path.replace(/:(\w+)/g, "{$1}") in openApiDocument.paths &&
        route.path !== "/auth/config",
    );
    expect(api.length).toBeGreaterThan(20);
    const undeclared = api.flatMap(({ route }) => {
      const [first] = route?.stack ?? [];
      return first?.handle.name === "decide" ? [] : [`${first?.method ?? "all"} ${route?.path}`];
    });
    // Each method's handlers are one layer per handler: the first of every method must be the decision.
    const methodsUndeclared = api.flatMap(({ route }) =>
      (route?.stack ?? []).flatMap((layer, at, all) =>
        at > 0 && layer.method !== all[at - 1]?.method && layer.handle.name !== "decide"
          ? [`${layer.method ?? "all"} ${route?.path}`]
          : [],
      ),
    );
    expect([...undeclared, ...methodsUndeclared]).toEqual([]);
  });

  it("the app serves exactly the documented API paths and the operations endpoints", () => {
    const app = anApp();
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
