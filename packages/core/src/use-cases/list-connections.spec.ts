import { describe, expect, it } from "vitest";
import { createTestWorld, expectRight } from "../../testing/index.js";

describe("listConnections", () => {
  it("lists alias and URL only, sorted by alias ignoring case", async () => {
    const { service } = createTestWorld();
    for (const alias of ["delta", "Bravo", "alpha", "Charlie"]) {
      await expectRight(service.addConnection({ alias, orchestratorUrl: `https://${alias}.example.net`, apiKey: "k" }, { force: true }));
    }
    const listed = await expectRight(service.listConnections());
    expect(listed.map((c) => c.alias)).toEqual(["alpha", "Bravo", "Charlie", "delta"]);
    expect(listed[0]).toEqual({ alias: "alpha", orchestratorUrl: "https://alpha.example.net" });
  });
});
