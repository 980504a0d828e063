import * as TE from "fp-ts/lib/TaskEither.js";
import { describe, expect, it } from "vitest";
import { createInMemoryConnectionRepository, createTestWorld, expectRight } from "../../testing/index.js";
import type { Alias, OrchestratorUrl } from "../domain/codecs.js";
import type { ConnectionSummary } from "../domain/connection.js";
import { listConnections } from "./list-connections.js";

describe("listConnections", () => {
  it("lists alias and URL only, sorted by alias ignoring case", async () => {
    const { service } = createTestWorld();
    for (const alias of ["delta", "Bravo", "alpha", "Charlie"]) {
      await expectRight(
        service.connections.add(
          { alias, orchestratorUrl: `https://${alias}.example.net`, apiKey: "k" },
          { force: true },
        ),
      );
    }
    const listed = await expectRight(service.connections.list());
    expect(listed.map((c) => c.alias)).toEqual(["alpha", "Bravo", "Charlie", "delta"]);
    expect(listed[0]).toEqual({ alias: "alpha", orchestratorUrl: "https://alpha.example.net" });
  });

  it("sorts a list a store hands back unchanged only once, and a new list again", async () => {
    const summary = (alias: string): ConnectionSummary => ({
      alias: alias as Alias,
      orchestratorUrl: "https://x.example.net" as OrchestratorUrl,
    });
    let stored = [summary("b"), summary("A")];
    const repository = { ...createInMemoryConnectionRepository(), list: () => TE.right(stored) };
    const list = listConnections({ repository });
    const first = await expectRight(list());
    expect(await expectRight(list())).toBe(first);
    stored = [...stored, summary("c")];
    expect((await expectRight(list())).map((c) => c.alias)).toEqual(["A", "b", "c"]);
  });
});
