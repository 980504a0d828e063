import { describe, expect, it } from "vitest";
import { href, parseRoute, type Route } from "./router.js";

describe("routes", () => {
  const routes: readonly Route[] = [
    { page: "connections" },
    { page: "add" },
    { page: "grants" },
    { page: "tokens" },
    { page: "webhooks" },
    { page: "webhook", id: "0b7c6e2a-1f0d-4c9e-9a53-5c1f2b9d8e71" },
    { page: "connection", alias: "Lab-1.a_b" },
    { page: "edit", alias: "lab" },
    { page: "customers", alias: "partner" },
  ];

  it("read back what they write", () => {
    for (const route of routes) expect(parseRoute(href(route))).toEqual(route);
  });

  it("read an escaped alias", () => {
    expect(parseRoute("#/connections/caf%C3%A9/edit")).toEqual({ page: "edit", alias: "café" });
  });

  it("send anything else (malformed escapes included) to the connections", () => {
    for (const hash of [
      "",
      "#",
      "#/nowhere",
      "#/connections/",
      "#/connections/a/b/c",
      "#/connections/%E0%A4%A",
      "#/connections/%/edit",
      "#/connections/50%25%zz/customers",
      "#/webhooks/",
      "#/webhooks/a/b",
      "#/webhooks/%zz",
      "#/toString",
      "#/tokens/x",
    ])
      expect(parseRoute(hash)).toEqual({ page: "connections" });
  });
});
