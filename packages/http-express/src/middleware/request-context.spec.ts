import { describe, expect, it } from "vitest";
import { rememberedPerPath } from "./request-context.js";

describe("rememberedPerPath", () => {
  it("labels a path once, however many requests name it", () => {
    let calls = 0;
    const label = rememberedPerPath((path) => {
      calls += 1;
      return `label of ${path}`;
    });
    for (let i = 0; i < 101; i += 1)
      expect(label("/rest/plugin/sdwan/partner/big/customers")).toBe(
        "label of /rest/plugin/sdwan/partner/big/customers",
      );
    expect(calls).toBe(1);
  });

  it("keeps at most max paths: one past them forgets the rest, which are labelled again", () => {
    let calls = 0;
    const label = rememberedPerPath((path) => {
      calls += 1;
      return path.toUpperCase();
    }, 3);
    for (const path of ["/a", "/b", "/c", "/a", "/b", "/c"]) label(path);
    expect(calls).toBe(3);
    expect(label("/d")).toBe("/D");
    expect(calls).toBe(4);
    // Forgotten when /d came in.
    expect(label("/a")).toBe("/A");
    expect(calls).toBe(5);
    expect(label("/d")).toBe("/D");
    expect(calls).toBe(5);
  });
});
