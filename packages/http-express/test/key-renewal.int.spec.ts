import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anAddBody, BASE, startHarness, VIEWER, type Harness } from "./harness.js";

// SPEC §12: `keyRenewal: "auto" | "off"` on POST and PUT, shown with ?verbose=true and ?stored=true. The renewal
// itself (the background rounds, the saga) is tested where it is built; here, the field as the interface takes it.
const CONNECTIONS = `${BASE}/connections`;
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h[Symbol.asyncDispose]();
});
beforeEach(async () => {
  for (const { alias } of (await h.call("GET", CONNECTIONS)).json<{ alias: string }[]>())
    await h.call("DELETE", `${CONNECTIONS}/${alias}`);
});

const stored = async (alias = "lab") =>
  (await h.call("GET", `${CONNECTIONS}/${alias}?stored=true`)).json<{ version: number; keyRenewal: string }>();
const add = (body: Record<string, unknown>, user?: { name: string; password: string }) =>
  h.call("POST", `${CONNECTIONS}?force=true`, {
    body: anAddBody({ alias: "lab", ...body }),
    ...(user ? { user } : {}),
  });

describe("SPEC §12: keyRenewal on the interface", () => {
  it("is off unless asked; auto on POST is shown with stored=true and verbose=true (the original's answers stay as they were)", async () => {
    expect((await add({})).status).toBe(200);
    expect(await stored()).toMatchObject({ keyRenewal: "off" });
    expect((await add({ alias: "edge", keyRenewal: "auto" })).status).toBe(200);
    expect(await stored("edge")).toMatchObject({ keyRenewal: "auto" });
    const verbose = (await h.call("GET", `${CONNECTIONS}/edge?verbose=true`)).json<Record<string, unknown>>();
    expect(verbose).toMatchObject({ keyRenewal: "auto" });
    const plain = (await h.call("GET", `${CONNECTIONS}/edge`)).json<Record<string, unknown>>();
    expect(Object.keys(plain).sort()).toEqual(["alias", "orchestratorUrl", "valid"]);
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([
      { alias: "edge", orchestratorUrl: "https://orchestrator.example.net/" },
      { alias: "lab", orchestratorUrl: "https://orchestrator.example.net/" },
    ]);
  });

  it("PUT switches it alone (a new version, audited as a change of keyRenewal); the same value again changes nothing", async () => {
    expect((await add({})).status).toBe(200);
    const before = await stored();
    const switched = await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { keyRenewal: "auto" } });
    expect(switched.status, switched.text).toBe(200);
    const after = await stored();
    expect(after.keyRenewal).toBe("auto");
    expect(after.version).toBeGreaterThan(before.version);
    expect((await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { keyRenewal: "auto" } })).status).toBe(200);
    expect((await stored()).version).toBe(after.version);
    const audit = (await h.call("GET", `${BASE}/audit?alias=lab`)).json<{
      entries: { action: string; fields: string[] }[];
    }>();
    expect(audit.entries.find(({ action }) => action === "update")?.fields).toEqual(["keyRenewal"]);
    // A new key leaves renewal as it was.
    const keyed = await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { apiKey: "another-partner-key" } });
    expect(keyed.status).toBe(200);
    expect((await stored()).keyRenewal).toBe("auto");
  });

  it("refuses any other value with a 400 naming keyRenewal, and changes nothing", async () => {
    for (const bad of ["on", "AUTO", "", true, null, 1, ["auto"]]) {
      const refused = await add({ keyRenewal: bad });
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({ errors: [{ field: "keyRenewal", message: "must be one of auto, off" }] });
    }
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([]);
    expect((await add({})).status).toBe(200);
    const before = await stored();
    for (const bad of ["yes", 0]) {
      const refused = await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { keyRenewal: bad } });
      expect(refused.status).toBe(400);
      expect(refused.json()).toMatchObject({ errors: [{ field: "keyRenewal", message: "must be one of auto, off" }] });
    }
    const mixed = await h.call("PUT", `${CONNECTIONS}/lab?force=true`, {
      body: { orchestratorUrl: "https://moved.example.net/", keyRenewal: "sometimes" },
    });
    expect(mixed.status).toBe(400);
    expect(await stored()).toEqual(before);
  });

  it("is a connection field like any other: a viewer may not set it (403), a `manage` grant may, within its pattern", async () => {
    expect((await add({})).status).toBe(200);
    expect((await add({ alias: "team-1", keyRenewal: "auto" }, VIEWER)).status).toBe(403);
    const viewerPut = await h.call("PUT", `${CONNECTIONS}/lab?force=true`, {
      user: VIEWER,
      body: { keyRenewal: "auto" },
    });
    expect(viewerPut.status).toBe(403);
    expect((await stored()).keyRenewal).toBe("off");

    const made = await h.call("POST", `${BASE}/tokens`, {
      body: { name: "team", expiresInDays: 1, grants: [{ pattern: "team-*", verb: "manage" }] },
    });
    expect(made.status, made.text).toBe(201);
    const team = { user: null, headers: { authorization: `Bearer ${made.json<{ token: string }>().token}` } };
    const added = await h.call("POST", `${CONNECTIONS}?force=true`, {
      ...team,
      body: anAddBody({ alias: "team-1", keyRenewal: "auto" }),
    });
    expect(added.status, added.text).toBe(200);
    expect((await stored("team-1")).keyRenewal).toBe("auto");
    const off = await h.call("PUT", `${CONNECTIONS}/team-1?force=true`, { ...team, body: { keyRenewal: "off" } });
    expect(off.status).toBe(200);
    expect((await stored("team-1")).keyRenewal).toBe("off");
    // Outside its pattern: as an unknown alias, never a change.
    expect(
      (await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { ...team, body: { keyRenewal: "auto" } })).status,
    ).toBe(404);
    expect((await stored()).keyRenewal).toBe("off");
  });
});
