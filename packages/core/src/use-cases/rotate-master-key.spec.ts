import { describe, expect, it } from "vitest";
import { aConnection, createTestWorld, expectRight } from "../../testing/index.js";

describe("rotateMasterKey", () => {
  it("re-seals through the repository and reports every stored connection", async () => {
    const { repository, service } = createTestWorld();
    await expectRight(repository.insert(aConnection({ alias: "one" })));
    await expectRight(repository.insert(aConnection({ alias: "two" })));
    expect(await expectRight(service.connections.rotateMasterKey())).toEqual({ rotated: 0, total: 2 });
  });
});
