import { describe, expect, it } from "vitest";
import { filterConnections } from "./connections-filter.js";

const connections = [
  { alias: "Lab", orchestratorUrl: "https://lab.example.net/" },
  { alias: "prod-eu", orchestratorUrl: "https://vco-eu.example.com" },
  { alias: "prod-us", orchestratorUrl: "https://vco-us.example.com" },
];

describe("filterConnections", () => {
  it("keeps every connection for an empty or blank search", () => {
    expect(filterConnections(connections, "")).toEqual(connections);
    expect(filterConnections(connections, "  ")).toEqual(connections);
  });

  it("matches the alias or the URL, any case, every word", () => {
    expect(filterConnections(connections, "LAB").map((c) => c.alias)).toEqual(["Lab"]);
    expect(filterConnections(connections, "example.com").map((c) => c.alias)).toEqual(["prod-eu", "prod-us"]);
    expect(filterConnections(connections, "prod vco-us").map((c) => c.alias)).toEqual(["prod-us"]);
    expect(filterConnections(connections, "nothing")).toEqual([]);
  });

  it("does not match across the alias and the URL", () => {
    expect(filterConnections(connections, "labhttps")).toEqual([]);
  });
});
