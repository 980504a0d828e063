import {
  orchestratorGarbage,
  orchestratorRateLimited,
  orchestratorRejected,
  orchestratorTimedOut,
  orchestratorUnreachable,
  CUSTOMER_FIELDS,
} from "@sdwan-connections/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  ADMIN,
  anAddBody,
  BASE,
  basic,
  partnerCustomers,
  startHarness,
  TEST_KEYS,
  testOrchestrator,
  VIEWER,
  type Harness,
} from "./harness.js";

const CONNECTIONS = `${BASE}/connections`;
const orchestrator = testOrchestrator();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ orchestrator });
});
afterAll(async () => {
  await h[Symbol.asyncDispose]();
});

const problemOf = (reply: { headers: Headers; json<T>(): T }) => {
  expect(reply.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
  return reply.json<{
    type: string;
    title: string;
    status: number;
    detail: string;
    errors?: { field: string; message: string }[];
  }>();
};

const clear = async () => {
  const list = await h.call("GET", CONNECTIONS);
  for (const { alias } of list.json<{ alias: string }[]>()) await h.call("DELETE", `${CONNECTIONS}/${alias}`);
};

describe("docs/interface.md §1: the wire contract", () => {
  beforeEach(clear);

  it("lists connections as {alias, orchestratorUrl}, sorted by alias ignoring case", async () => {
    for (const alias of ["beta", "Alpha", "gamma"]) {
      expect((await h.call("POST", `${CONNECTIONS}?force=true`, { body: anAddBody({ alias }) })).status).toBe(200);
    }
    const reply = await h.call("GET", CONNECTIONS);
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(reply.json()).toEqual(
      ["Alpha", "beta", "gamma"].map((alias) => ({ alias, orchestratorUrl: "https://orchestrator.example.net/" })),
    );
  });

  it("adds a connection the orchestrator accepts: 200 text/plain", async () => {
    const reply = await h.call("POST", CONNECTIONS, { body: anAddBody() });
    expect([reply.status, reply.text, reply.headers.get("content-type")]).toEqual([
      200,
      "Connection successfully added",
      "text/plain; charset=utf-8",
    ]);
  });

  it("dryrun=true validates and stores nothing", async () => {
    const reply = await h.call("POST", `${CONNECTIONS}?dryrun=true`, { body: anAddBody() });
    expect([reply.status, reply.text]).toEqual([200, "Dry run successful"]);
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([]);
  });

  it("dryrun=true&force=true checks the request alone (fields, a free alias): nothing asked, nothing stored", async () => {
    const asked = orchestrator.calls.identify;
    const reply = await h.call("POST", `${CONNECTIONS}?dryrun=true&force=true`, {
      body: anAddBody({ apiKey: TEST_KEYS.refused }),
    });
    expect([reply.status, reply.text]).toEqual([200, "Dry run successful"]);
    expect((await h.call("POST", `${CONNECTIONS}?dryrun=true&force=true`, { body: { alias: "x" } })).status).toBe(400);
    expect(orchestrator.calls.identify).toBe(asked);
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([]);
  });

  it("dryrun=true still refuses a key the orchestrator rejects (422)", async () => {
    const reply = await h.call("POST", `${CONNECTIONS}?dryrun=true`, {
      body: anAddBody({ apiKey: TEST_KEYS.refused }),
    });
    expect(reply.status).toBe(422);
  });

  it("refuses (422, saying why) a key the orchestrator rejects, unless force=true", async () => {
    const refused = await h.call("POST", CONNECTIONS, { body: anAddBody({ apiKey: TEST_KEYS.refused }) });
    expect(refused.status).toBe(422);
    expect(problemOf(refused).detail).toContain("refused the API key");
    // What refused it, as data: clients branch on `cause`, never on the detail's words.
    expect(problemOf(refused)).toMatchObject({ cause: "orchestrator-rejected", reason: expect.any(String) });
    expect(refused.text).not.toContain(TEST_KEYS.refused);
    const forced = await h.call("POST", `${CONNECTIONS}?force=true`, {
      body: anAddBody({ apiKey: TEST_KEYS.refused }),
    });
    expect([forced.status, forced.text]).toEqual([200, "Connection successfully added"]);
  });

  it("refuses (422) when the orchestrator cannot be reached", async () => {
    orchestrator.failWith(TEST_KEYS.customer, orchestratorUnreachable("Cannot connect to the orchestrator."));
    try {
      const reply = await h.call("POST", CONNECTIONS, { body: anAddBody({ apiKey: TEST_KEYS.customer }) });
      expect(reply.status).toBe(422);
      expect(problemOf(reply).detail).toContain("Cannot connect");
      expect(problemOf(reply)).toMatchObject({
        cause: "orchestrator-unreachable",
        reason: "Cannot connect to the orchestrator.",
      });
    } finally {
      orchestrator.failWith(TEST_KEYS.customer, undefined);
    }
  });

  it("updates a connection: 200 text/plain; PUT validates the result and refuses a rejected key", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const reply = await h.call("PUT", `${CONNECTIONS}/Lab`, { body: { orchestratorUrl: "https://other.example.net" } });
    expect([reply.status, reply.text, reply.headers.get("content-type")]).toEqual([
      200,
      "Connection successfully updated",
      "text/plain; charset=utf-8",
    ]);
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([
      { alias: "Lab", orchestratorUrl: "https://other.example.net" },
    ]);
    expect((await h.call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey: TEST_KEYS.refused } })).status).toBe(422);
    expect((await h.call("PUT", `${CONNECTIONS}/lab?force=true`, { body: { apiKey: TEST_KEYS.refused } })).status).toBe(
      200,
    );
  });

  it("PUT dryrun=true validates the connection as the change would make it and changes nothing (an addition to the original)", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const { version } = (await h.call("GET", `${CONNECTIONS}/lab?verbose=true`)).json<{ version: number }>();
    const dry = await h.call("PUT", `${CONNECTIONS}/lab?dryrun=true`, {
      body: { orchestratorUrl: "https://other.example.net", apiKey: TEST_KEYS.customer },
    });
    expect([dry.status, dry.text]).toEqual([200, "Dry run successful"]);
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([
      { alias: "Lab", orchestratorUrl: "https://orchestrator.example.net/" },
    ]);
    expect((await h.call("GET", `${CONNECTIONS}/lab?verbose=true`)).json()).toMatchObject({ version, type: "partner" });
    expect(
      (await h.call("PUT", `${CONNECTIONS}/lab?dryrun=true`, { body: { apiKey: TEST_KEYS.refused } })).status,
    ).toBe(422);
    expect(
      (
        await h.call("PUT", `${CONNECTIONS}/lab?dryrun=true`, {
          body: { apiKey: TEST_KEYS.partner },
          headers: { "if-match": `"${version + 1}"` },
        })
      ).status,
    ).toBe(412);
    expect(
      (await h.call("PUT", `${CONNECTIONS}/ghost?dryrun=true`, { body: { apiKey: TEST_KEYS.partner } })).status,
    ).toBe(404);
  });

  it("validates: exactly {alias, orchestratorUrl, valid}; verbose adds type or reason, the version, the key's date and fingerprint", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    await h.call("POST", `${CONNECTIONS}?force=true`, {
      body: anAddBody({ alias: "revoked", apiKey: TEST_KEYS.refused }),
    });
    const plain = await h.call("GET", `${CONNECTIONS}/lab`);
    expect(plain.status).toBe(200);
    expect(plain.json()).toStrictEqual({
      alias: "Lab",
      orchestratorUrl: "https://orchestrator.example.net/",
      valid: true,
    });
    expect((await h.call("GET", `${CONNECTIONS}/Lab?verbose=true`)).json()).toStrictEqual({
      alias: "Lab",
      orchestratorUrl: "https://orchestrator.example.net/",
      valid: true,
      type: "partner",
      version: expect.any(Number),
      apiKeySetAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      apiKeyFingerprint: expect.stringMatching(/^[\w-]{43}$/),
      apiKeyExpiresAt: null,
      apiKeyExpirySource: null,
      keyRenewal: "off",
    });
    expect((await h.call("GET", `${CONNECTIONS}/revoked`)).json()).toStrictEqual({
      alias: "revoked",
      orchestratorUrl: "https://orchestrator.example.net/",
      valid: false,
    });
    const verbose = (await h.call("GET", `${CONNECTIONS}/revoked?verbose=TRUE`)).json<Record<string, unknown>>();
    expect(Object.keys(verbose)).toEqual([
      "alias",
      "orchestratorUrl",
      "valid",
      "reason",
      "version",
      "apiKeySetAt",
      "apiKeyFingerprint",
      "apiKeyExpiresAt",
      "apiKeyExpirySource",
      "keyRenewal",
    ]);
    expect(verbose["valid"]).toBe(false);
  });

  it("answers 200 valid:false (not an error) when the orchestrator cannot be reached or times out", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "flaky", apiKey: TEST_KEYS.customer }) });
    for (const failure of [
      orchestratorUnreachable("Cannot connect."),
      orchestratorTimedOut("No answer within 10000 ms."),
    ]) {
      orchestrator.failWith(TEST_KEYS.customer, failure);
      const reply = await h.call("GET", `${CONNECTIONS}/flaky?verbose=true`);
      expect([reply.status, reply.json()]).toEqual([
        200,
        expect.objectContaining({ valid: false, reason: failure.reason }),
      ]);
    }
    orchestrator.failWith(TEST_KEYS.customer, undefined);
    expect((await h.call("GET", `${CONNECTIONS}/flaky?verbose=true`)).json()).toMatchObject({
      valid: true,
      type: "customer",
    });
  });

  it("lists a partner's customers with exactly the 20 fields", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const reply = await h.call("GET", `${BASE}/partner/lab/customers`);
    expect(reply.status).toBe(200);
    const customers = reply.json<Record<string, unknown>[]>();
    expect(customers).toEqual(partnerCustomers);
    for (const customer of customers) expect(Object.keys(customer)).toEqual(CUSTOMER_FIELDS);
  });

  it("deletes a connection: 204, no body; then 404", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const reply = await h.call("DELETE", `${CONNECTIONS}/LAB`);
    expect([reply.status, reply.text]).toEqual([204, ""]);
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`)).status).toBe(404);
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([]);
  });
});

describe("docs/interface.md §1: versions (ETag, If-Match)", () => {
  beforeEach(clear);
  const ifMatch = (tag: string) => ({ headers: { "if-match": tag } });

  it("GET answers the version as a strong ETag; PUT and DELETE at another version are 412 and change nothing", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const tag = (await h.call("GET", `${CONNECTIONS}/lab`)).headers.get("etag") ?? "";
    expect(tag).toMatch(/^"[1-9]\d*"$/);
    const version = Number(tag.slice(1, -1));
    const stale = await h.call("PUT", `${CONNECTIONS}/lab`, {
      body: { orchestratorUrl: "https://other.example.net" },
      ...ifMatch(`"${version + 1}"`),
    });
    expect(stale.status).toBe(412);
    expect(problemOf(stale)).toMatchObject({ type: "urn:sdwan-connections:problem:version-mismatch", status: 412 });
    expect(problemOf(stale).detail).toContain(`version ${version}`);
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`, ifMatch(`"${version + 7}", W/${tag}`))).status).toBe(412);
    expect((await h.call("GET", `${CONNECTIONS}/lab`)).json()).toMatchObject({
      orchestratorUrl: "https://orchestrator.example.net/",
    });

    const updated = await h.call("PUT", `${CONNECTIONS}/lab`, {
      body: { orchestratorUrl: "https://other.example.net" },
      ...ifMatch(`"${version + 9}", ${tag}`),
    });
    expect([updated.status, updated.text]).toEqual([200, "Connection successfully updated"]);
    const next = (await h.call("GET", `${CONNECTIONS}/lab`)).headers.get("etag") ?? "";
    expect(Number(next.slice(1, -1))).toBeGreaterThan(version);
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`, ifMatch(next))).status).toBe(204);
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`, ifMatch(next))).status).toBe(404);
  });

  it("GET ?stored=true answers the connection as stored with its ETag, without asking the orchestrator", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const identifications = orchestrator.calls.identify;
    const reply = await h.call("GET", `${CONNECTIONS}/LAB?stored=true`);
    expect(reply.status).toBe(200);
    const { version } = reply.json<{ version: number }>();
    expect(reply.headers.get("etag")).toBe(`"${version}"`);
    expect(reply.json()).toEqual({
      alias: "Lab",
      orchestratorUrl: "https://orchestrator.example.net/",
      version: expect.any(Number),
      apiKeySetAt: expect.stringMatching(/Z$/),
      apiKeyFingerprint: expect.stringMatching(/^[\w-]{43}$/),
      apiKeyExpiresAt: null,
      apiKeyExpirySource: null,
      keyRenewal: "off",
    });
    expect(orchestrator.calls.identify).toBe(identifications);
    expect(reply.text).not.toContain(TEST_KEYS.partner);
    expect(reply.headers.get("etag")).toBe((await h.call("GET", `${CONNECTIONS}/lab`)).headers.get("etag")); // the validation's tag
    expect((await h.call("GET", `${CONNECTIONS}/ghost?stored=true`)).status).toBe(404);
    expect((await h.call("GET", `${CONNECTIONS}/lab?stored=maybe`)).status).toBe(400);
  });

  it("without If-Match, or with *, writes as before; a malformed If-Match is 400 and is not echoed", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    expect(
      (await h.call("PUT", `${CONNECTIONS}/lab`, { body: { orchestratorUrl: "https://a.example.net" } })).status,
    ).toBe(200);
    expect(
      (
        await h.call("PUT", `${CONNECTIONS}/lab`, {
          body: { orchestratorUrl: "https://b.example.net" },
          ...ifMatch("*"),
        })
      ).status,
    ).toBe(200);
    const malformed = await h.call("PUT", `${CONNECTIONS}/lab`, {
      body: { orchestratorUrl: "https://c.example.net" },
      ...ifMatch("secret-ish 3"),
    });
    expect(malformed.status).toBe(400);
    expect(problemOf(malformed).errors).toEqual([{ field: "If-Match", message: expect.any(String) }]);
    expect(malformed.text).not.toContain("secret-ish");
    expect((await h.call("GET", `${CONNECTIONS}/lab`)).json()).toMatchObject({
      orchestratorUrl: "https://b.example.net",
    });
  });

  it("never lets a tag of a deleted connection match the alias added again: the old ETag gets 412", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const old = (await h.call("GET", `${CONNECTIONS}/lab`)).headers.get("etag") ?? "";
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`)).status).toBe(204);
    expect((await h.call("POST", CONNECTIONS, { body: anAddBody() })).status).toBe(200);
    const reborn = (await h.call("GET", `${CONNECTIONS}/lab`)).headers.get("etag") ?? "";
    expect(reborn).not.toBe(old);
    expect(
      (
        await h.call("PUT", `${CONNECTIONS}/lab`, {
          body: { orchestratorUrl: "https://lost-update.example.net" },
          ...ifMatch(old),
        })
      ).status,
    ).toBe(412);
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`, ifMatch(old))).status).toBe(412);
    expect((await h.call("GET", `${CONNECTIONS}/lab`)).json()).toMatchObject({
      orchestratorUrl: "https://orchestrator.example.net/",
    });
    expect((await h.call("DELETE", `${CONNECTIONS}/lab`, ifMatch(reborn))).status).toBe(204);
  });

  it("keeps the ETag of an update that changes nothing (the same URL, the same key), and drops the cached customers all the same", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const tag = (await h.call("GET", `${CONNECTIONS}/lab`)).headers.get("etag") ?? "";
    const same = await h.call("PUT", `${CONNECTIONS}/lab`, {
      body: { orchestratorUrl: anAddBody().orchestratorUrl, apiKey: anAddBody().apiKey },
      ...ifMatch(tag),
    });
    expect([same.status, same.text]).toEqual([200, "Connection successfully updated"]);
    expect((await h.call("GET", `${CONNECTIONS}/lab`)).headers.get("etag")).toBe(tag);
    // It is still an update, which drops the partner's cached customers (SPEC §4; regression: they stayed cached).
    expect((await h.call("GET", `${BASE}/partner/lab/customers`)).status).toBe(200);
    const listed = orchestrator.calls.listPartnerCustomers;
    expect((await h.call("GET", `${BASE}/partner/lab/customers`)).status).toBe(200);
    expect(orchestrator.calls.listPartnerCustomers).toBe(listed);
    expect((await h.call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey: anAddBody().apiKey } })).status).toBe(200);
    expect((await h.call("GET", `${BASE}/partner/lab/customers`)).status).toBe(200);
    expect(orchestrator.calls.listPartnerCustomers).toBe(listed + 1);
    expect(
      (
        await h.call("PUT", `${CONNECTIONS}/lab`, {
          body: { orchestratorUrl: "https://moved.example.net" },
          ...ifMatch(tag),
        })
      ).status,
    ).toBe(200);
    expect((await h.call("GET", `${CONNECTIONS}/lab`)).headers.get("etag")).not.toBe(tag);
  });

  it("of two writers racing at the same version, one wins and the other gets 412", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const tag = (await h.call("GET", `${CONNECTIONS}/lab`)).headers.get("etag") ?? "";
    const replies = await Promise.all([
      h.call("PUT", `${CONNECTIONS}/lab`, { body: { orchestratorUrl: "https://first.example.net" }, ...ifMatch(tag) }),
      h.call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey: TEST_KEYS.customer }, ...ifMatch(tag) }),
      h.call("DELETE", `${CONNECTIONS}/lab`, ifMatch(tag)),
    ]);
    expect(replies.filter((reply) => reply.status === 412)).toHaveLength(2);
    expect(replies.filter((reply) => reply.status === 200 || reply.status === 204)).toHaveLength(1);
  });
});

describe("docs/interface.md §2: fields and their rules", () => {
  beforeEach(clear);

  const badAdds: [string, Record<string, unknown>, string][] = [
    ["alias too long", { alias: "a".repeat(65) }, "alias"],
    ["alias with a space", { alias: "my lab" }, "alias"],
    ["alias starting with a dot", { alias: ".lab" }, "alias"],
    ["empty alias", { alias: "" }, "alias"],
    ["alias not a string", { alias: 42 }, "alias"],
    ["missing alias", { alias: undefined }, "alias"],
    ["relative URL", { orchestratorUrl: "/portal" }, "orchestratorUrl"],
    ["ftp URL", { orchestratorUrl: "ftp://orchestrator.example.net" }, "orchestratorUrl"],
    ["URL with user-info", { orchestratorUrl: "https://user:pw@orchestrator.example.net" }, "orchestratorUrl"],
    ["URL with a fragment", { orchestratorUrl: "https://orchestrator.example.net/#x" }, "orchestratorUrl"],
    ["URL too long", { orchestratorUrl: `https://o.example.net/${"a".repeat(2048)}` }, "orchestratorUrl"],
    ["missing URL", { orchestratorUrl: undefined }, "orchestratorUrl"],
    ["empty apiKey", { apiKey: "" }, "apiKey"],
    ["apiKey too long", { apiKey: "k".repeat(8193) }, "apiKey"],
    ["apiKey with a control character", { apiKey: "secret\nkey-xyz" }, "apiKey"],
    ["apiKey not a string", { apiKey: 12345 }, "apiKey"],
    ["missing apiKey", { apiKey: undefined }, "apiKey"],
    ["unknown key (a typo)", { apikey: "typo-secret-777" }, "apikey"],
  ];

  it.each(badAdds)("POST refuses %s with 400 naming the field", async (_name, overrides, field) => {
    const reply = await h.call("POST", CONNECTIONS, { body: anAddBody(overrides) });
    expect(reply.status).toBe(400);
    const body = problemOf(reply);
    expect(body.errors?.map((e) => e.field)).toContain(field);
    expect(reply.text).not.toContain(TEST_KEYS.partner);
    for (const value of Object.values(overrides))
      if (typeof value === "string" && field.toLowerCase() === "apikey")
        expect(reply.text).not.toContain(value.slice(0, 20) || "\u0000");
  });

  it("refuses a body that is not an object", async () => {
    for (const body of [[], "text", 7, null]) {
      const reply = await h.call("POST", CONNECTIONS, { body });
      expect(reply.status).toBe(400);
      expect(problemOf(reply).errors?.[0]?.field).toBe("body");
    }
  });

  it("accepts a 64-character alias and a 2048-character URL, and keeps the URL exactly as given", async () => {
    const alias = `A${"b".repeat(63)}`;
    const orchestratorUrl = `https://o.example.net/${"p".repeat(2048 - 22)}`;
    expect(orchestratorUrl).toHaveLength(2048);
    expect((await h.call("POST", CONNECTIONS, { body: anAddBody({ alias, orchestratorUrl }) })).status).toBe(200);
    expect(
      (
        await h.call("POST", CONNECTIONS, {
          body: anAddBody({ alias: "noslash", orchestratorUrl: "http://o.example.net" }),
        })
      ).status,
    ).toBe(200);
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([
      { alias, orchestratorUrl },
      { alias: "noslash", orchestratorUrl: "http://o.example.net" },
    ]);
  });

  it("matches aliases ignoring case and returns them as first given", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "MyLab" }) });
    expect((await h.call("GET", `${CONNECTIONS}/mylab`)).json()).toMatchObject({ alias: "MyLab" });
    await h.call("PUT", `${CONNECTIONS}/MYLAB`, { body: { orchestratorUrl: "https://x.example.net" } });
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([
      { alias: "MyLab", orchestratorUrl: "https://x.example.net" },
    ]);
    // A path may end with a slash, and an alias may come percent-encoded: the same endpoint, the same connection.
    expect((await h.call("GET", `${CONNECTIONS}/`)).json()).toEqual((await h.call("GET", CONNECTIONS)).json());
    expect((await h.call("GET", `${CONNECTIONS}/%6DyLab/`)).json()).toMatchObject({ alias: "MyLab" });
  });

  it("PUT: each field optional, at least one; an omitted field keeps its value", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const empty = await h.call("PUT", `${CONNECTIONS}/lab`, { body: {} });
    expect(empty.status).toBe(400);
    expect(problemOf(empty).errors).toEqual([
      {
        field: "body",
        message: "must contain at least one of orchestratorUrl, apiKey, apiKeyExpiresAt, keyRenewal, apiKeyRef",
      },
    ]);
    expect((await h.call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey: TEST_KEYS.partner } })).status).toBe(200);
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([
      { alias: "Lab", orchestratorUrl: "https://orchestrator.example.net/" },
    ]);
  });

  it("PUT: an alias in the body must equal the path alias (ignoring case), else 400", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    expect(
      (await h.call("PUT", `${CONNECTIONS}/lab`, { body: { alias: "LAB", apiKey: TEST_KEYS.partner } })).status,
    ).toBe(200);
    const other = await h.call("PUT", `${CONNECTIONS}/lab`, { body: { alias: "other", apiKey: TEST_KEYS.partner } });
    expect(other.status).toBe(400);
    expect(problemOf(other).errors?.map((e) => e.field)).toEqual(["alias"]);
  });

  it("PUT: refuses unknown keys, bad fields, and a bad alias in the path", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const typo = await h.call("PUT", `${CONNECTIONS}/lab`, { body: { apikey: "typo-secret" } });
    expect([typo.status, problemOf(typo).errors]).toEqual([
      400,
      [{ field: "apikey", message: "is not a known field" }],
    ]);
    expect((await h.call("PUT", `${CONNECTIONS}/lab`, { body: { orchestratorUrl: "mailto:x@y" } })).status).toBe(400);
    expect((await h.call("PUT", `${CONNECTIONS}/lab`, { body: { apiKey: "" } })).status).toBe(400);
    expect((await h.call("PUT", `${CONNECTIONS}/bad%20alias`, { body: { apiKey: TEST_KEYS.partner } })).status).toBe(
      400,
    );
  });

  it("refuses a bad alias in any path with 400", async () => {
    for (const [method, path] of [
      ["GET", `${CONNECTIONS}/bad%20alias`],
      ["DELETE", `${CONNECTIONS}/-lead`],
      ["GET", `${BASE}/partner/${"x".repeat(65)}/customers`],
    ] as const) {
      const reply = await h.call(method, path);
      expect(reply.status, path).toBe(400);
      expect(problemOf(reply).errors?.[0]?.field).toBe("alias");
    }
  });

  it("refuses unknown or malformed query options with 400", async () => {
    for (const query of ["dryRun=true", "dryrun=yes", "dryrun=true&dryrun=false", "force=1", "verbose=true"]) {
      const reply = await h.call("POST", `${CONNECTIONS}?${query}`, { body: anAddBody() });
      expect(reply.status, query).toBe(400);
      expect(problemOf(reply).errors?.[0]?.field).toMatch(/^query(\.|$)/);
    }
    expect((await h.call("GET", `${CONNECTIONS}?verbose=true`)).status).toBe(400);
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([]);
  });

  it("names the known query options, never an unknown one (a secret pasted there does not come back)", async () => {
    const reply = await h.call("POST", `${CONNECTIONS}?sk-live-0123456789=true&dryrun=true`, { body: anAddBody() });
    expect(reply.status).toBe(400);
    expect(reply.text).not.toContain("sk-live-0123456789");
    expect(problemOf(reply).errors).toEqual([
      { field: "query", message: "holds an option this endpoint does not know (known: dryrun, force)" },
    ]);
  });
});

describe("docs/interface.md §3: errors", () => {
  beforeEach(clear);

  it("400 for malformed JSON, without quoting the body", async () => {
    const reply = await h.call("POST", CONNECTIONS, {
      rawBody: `{"alias":"x","apiKey":"leaky-secret-123",`,
      headers: { "content-type": "application/json" },
    });
    expect(reply.status).toBe(400);
    expect(problemOf(reply).errors).toEqual([{ field: "body", message: "is not valid JSON" }]);
    expect(reply.text).not.toContain("leaky-secret-123");
  });

  // Bug: a field given twice was read as its last value (JSON.parse): a proxy checking the first saw another body.
  it("400 for a field given twice in one object, naming it, quoting no value, storing nothing", async () => {
    for (const rawBody of [
      `{"alias":"twice","orchestratorUrl":"https://vco.example.net/","apiKey":"first-secret-1","apiKey":"second-secret-2"}`,
      `{"alias":"twice","orchestratorUrl":"https://vco.example.net/","\\u0061piKey":"first-secret-1","apiKey":"second-secret-2"}`,
    ]) {
      const reply = await h.call("POST", `${CONNECTIONS}?force=true`, {
        rawBody,
        headers: { "content-type": "application/json" },
      });
      expect(reply.status).toBe(400);
      expect(problemOf(reply).errors).toEqual([{ field: "apiKey", message: "is given twice: give each field once" }]);
      expect(reply.text).not.toMatch(/first-secret|second-secret/);
    }
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([]);
  });

  it("401 without or with wrong credentials, with WWW-Authenticate", async () => {
    for (const user of [null, { name: "admin", password: "wrong-password" }, { name: "nobody", password: "x" }]) {
      const reply = await h.call("GET", CONNECTIONS, { user });
      expect(reply.status).toBe(401);
      expect(reply.headers.get("www-authenticate")).toMatch(/^Basic realm="sdwan"/);
      expect(problemOf(reply).status).toBe(401);
    }
    const garbage = await h.call("GET", CONNECTIONS, { user: null, headers: { authorization: "Bearer abc" } });
    expect(garbage.status).toBe(401);
  });

  it("403 when a viewer tries to write; viewers may read", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    expect((await h.call("GET", CONNECTIONS, { user: VIEWER })).status).toBe(200);
    expect((await h.call("GET", `${CONNECTIONS}/lab`, { user: VIEWER })).status).toBe(200);
    expect((await h.call("GET", `${BASE}/partner/lab/customers`, { user: VIEWER })).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", CONNECTIONS, anAddBody({ alias: "v" })],
      ["PUT", `${CONNECTIONS}/lab`, { apiKey: TEST_KEYS.partner }],
      ["DELETE", `${CONNECTIONS}/lab`, undefined],
    ] as const) {
      const reply = await h.call(method, path, { user: VIEWER, ...(body === undefined ? {} : { body }) });
      expect(reply.status, method).toBe(403);
      expect(problemOf(reply).title).toBe("Forbidden");
    }
  });

  it("404 for an unknown alias on every endpoint", async () => {
    for (const [method, path, body] of [
      ["GET", `${CONNECTIONS}/ghost`, undefined],
      ["PUT", `${CONNECTIONS}/ghost`, { apiKey: TEST_KEYS.partner }],
      ["DELETE", `${CONNECTIONS}/ghost`, undefined],
      ["GET", `${BASE}/partner/ghost/customers`, undefined],
    ] as const) {
      const reply = await h.call(method, path, body === undefined ? {} : { body });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(problemOf(reply).detail).toContain("ghost");
    }
  });

  it("409 when POSTing an alias that exists in another case", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    const reply = await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "LAB" }) });
    expect(reply.status).toBe(409);
    expect(problemOf(reply).detail).toContain("'Lab'");
  });

  it("409 when customers are asked of a customer connection", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "cust", apiKey: TEST_KEYS.customer }) });
    expect((await h.call("GET", `${BASE}/partner/cust/customers`)).status).toBe(409);
  });

  it("415 when a POST or PUT body is not JSON", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody() });
    for (const [method, path] of [
      ["POST", CONNECTIONS],
      ["PUT", `${CONNECTIONS}/lab`],
    ] as const) {
      for (const headers of [
        { "content-type": "text/plain" },
        { "content-type": "application/x-www-form-urlencoded" },
        {},
      ]) {
        const reply = await h.call(method, path, { rawBody: JSON.stringify(anAddBody()), headers });
        expect(reply.status, `${method} ${JSON.stringify(headers)}`).toBe(415);
        problemOf(reply);
      }
    }
    const latin1 = await h.call("POST", CONNECTIONS, {
      rawBody: "{}",
      headers: { "content-type": "application/json; charset=iso-8859-1" },
    });
    expect(latin1.status).toBe(415);
  });

  it("415 for JSON declared in any charset but UTF-8 (UTF-16 included); nothing is stored", async () => {
    const body = JSON.stringify(anAddBody({ alias: "utf16" }));
    for (const charset of ["utf-16", "UTF-16LE", '"utf-16be"', "utf-32"]) {
      const reply = await h.call("POST", CONNECTIONS, {
        rawBody: body,
        headers: { "content-type": `application/json; charset=${charset}` },
      });
      expect(reply.status, charset).toBe(415);
    }
    for (const [index, charset] of ["utf-8", "UTF-8", '"utf-8"'].entries()) {
      const reply = await h.call("POST", CONNECTIONS, {
        rawBody: JSON.stringify(anAddBody({ alias: `ok-${index}` })),
        headers: { "content-type": `application/json; charset=${charset}` },
      });
      expect(reply.status, charset).toBe(200);
    }
    expect((await h.call("GET", CONNECTIONS)).json<{ alias: string }[]>().map(({ alias }) => alias)).not.toContain(
      "utf16",
    );
  });

  it("400 for an apiKey that would be stored altered or invisible: invalid UTF-8, lone surrogates, format characters, only whitespace", async () => {
    const bodies = [
      Buffer.concat([
        Buffer.from('{"alias":"bad","orchestratorUrl":"https://o.example.net/","apiKey":"key'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('"}'),
      ]),
      Buffer.from(JSON.stringify(anAddBody({ alias: "bad" })).replace(TEST_KEYS.partner, "key\\ud800")),
      ...["key\u200bkey", "\u202ekey", "key\u2028", "   "].map((apiKey) =>
        Buffer.from(JSON.stringify(anAddBody({ alias: "bad", apiKey }))),
      ),
    ];
    for (const body of bodies) {
      const response = await fetch(`${h.service.url}${CONNECTIONS}`, {
        method: "POST",
        headers: { authorization: basic(ADMIN), "content-type": "application/json" },
        body,
      });
      const problem = (await response.json()) as { errors?: { field: string }[] };
      expect(response.status, body.toString("latin1")).toBe(400);
      expect(problem.errors?.[0]?.field).toBe("apiKey");
    }
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([]);
  });

  it("400 for an orchestratorUrl with an invisible format character (a right-to-left override shows it reversed), at add and update; nothing stored", async () => {
    const urls = [
      "https://o.example.net/\u202Eten.elpmaxe",
      "https://o\u202E.example.net/",
      "https://o.example.net/a\u200Bb",
    ];
    for (const orchestratorUrl of urls) {
      const added = await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "bad", orchestratorUrl }) });
      expect(added.status, orchestratorUrl).toBe(400);
      expect(problemOf(added).errors?.[0]?.field).toBe("orchestratorUrl");
    }
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([]);
    expect((await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "kept" }) })).status).toBe(200);
    for (const orchestratorUrl of urls) {
      const updated = await h.call("PUT", `${CONNECTIONS}/kept`, { body: { orchestratorUrl } });
      expect(updated.status, orchestratorUrl).toBe(400);
      expect(problemOf(updated).errors?.[0]?.field).toBe("orchestratorUrl");
    }
    expect((await h.call("GET", CONNECTIONS)).json()).toEqual([
      { alias: "kept", orchestratorUrl: anAddBody().orchestratorUrl },
    ]);
    expect((await h.call("DELETE", `${CONNECTIONS}/kept`)).status).toBe(204);
  });

  it("400 for a body that does not match its Content-Encoding (found by the fuzz test)", async () => {
    for (const encoding of ["gzip", "deflate", "br"]) {
      const reply = await h.call("POST", CONNECTIONS, {
        rawBody: "{}",
        headers: { "content-type": "application/json", "content-encoding": encoding },
      });
      expect(reply.status, encoding).toBe(400);
      expect(problemOf(reply).errors).toEqual([
        { field: "body", message: "cannot be read as sent (does it match its Content-Encoding?)" },
      ]);
    }
    expect(h.logs.entries().filter((entry) => entry["level"] === "error")).toEqual([]);
  });

  it("400 naming the path parameter for a malformed percent-escape in an alias, for any role", async () => {
    for (const path of [
      `${CONNECTIONS}/%zz`,
      `${CONNECTIONS}/lab%`,
      `${CONNECTIONS}/%C0%AF`,
      `${BASE}/partner/%E0%A4%A/customers`,
    ]) {
      for (const user of [ADMIN, VIEWER]) {
        const reply = await h.call("GET", path, { user });
        expect(reply.status, path).toBe(400);
        expect(problemOf(reply).errors).toEqual([{ field: "alias", message: "is not valid percent-encoded UTF-8" }]);
      }
    }
    expect(h.logs.entries().filter((entry) => entry["level"] === "error")).toEqual([]);
  });

  it("413 for a body over 64 KiB; 64 KiB itself is read", async () => {
    const big = await h.call("POST", CONNECTIONS, { body: anAddBody({ apiKey: "k".repeat(70_000) }) });
    expect(big.status).toBe(413);
    expect(big.text).not.toContain("kkkkkkkk");
    const padding = 64 * 1024 - JSON.stringify({ ...anAddBody(), note: "" }).length;
    const justFits = await h.call("POST", CONNECTIONS, { body: { ...anAddBody(), note: "n".repeat(padding) } });
    expect(justFits.status).toBe(400); // read and decoded: `note` is an unknown field
  });

  it("502 / 504 when the orchestrator fails during customers", async () => {
    await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "p2", apiKey: TEST_KEYS.customer }) });
    const cases = [
      [orchestratorRejected("The orchestrator refused the API key."), 502],
      [orchestratorGarbage("The orchestrator's answer could not be read."), 502],
      [orchestratorUnreachable("Cannot connect."), 502],
      [orchestratorRateLimited("Too many requests.", 7), 502],
      [orchestratorTimedOut("No answer within 10000 ms."), 504],
    ] as const;
    for (const [failure, status] of cases) {
      orchestrator.failWith(TEST_KEYS.customer, failure);
      const reply = await h.call("GET", `${BASE}/partner/p2/customers`);
      expect(reply.status, failure._tag).toBe(status);
      expect(problemOf(reply).detail).toBe(failure.reason);
      if (failure._tag === "OrchestratorRateLimited") expect(reply.headers.get("retry-after")).toBe("7");
    }
    orchestrator.failWith(TEST_KEYS.customer, undefined);
  });

  it("405 with Allow for a method a path does not take, 204 with it for OPTIONS; 404 problem for unknown paths", async () => {
    const patch = await h.call("PATCH", CONNECTIONS);
    expect([patch.status, patch.headers.get("allow")]).toEqual([405, "GET, HEAD, POST"]);
    // OPTIONS asks which methods a path takes: 204 with the same Allow, as docs/interface.md §3 says.
    const options = await h.call("OPTIONS", CONNECTIONS);
    expect([options.status, options.headers.get("allow"), options.text]).toEqual([204, "GET, HEAD, POST", ""]);
    const unknown = await h.call("GET", `${BASE}/nothing-here`);
    expect(unknown.status).toBe(404);
    problemOf(unknown);
  });
});

describe("operations (docs/interface.md §7)", () => {
  it("healthz, readyz, metrics and the OpenAPI document need no credentials", async () => {
    for (const path of ["/healthz", "/readyz", "/metrics", `${BASE}/openapi.json`]) {
      expect((await h.call("GET", path, { user: null })).status, path).toBe(200);
      // Read only, and said so as on the API (regression: 404 "no endpoint", or 401 for the OpenAPI document).
      const posted = await h.call("POST", path, { user: null });
      expect([posted.status, posted.headers.get("allow")], path).toEqual([405, "GET, HEAD"]);
    }
    const openapi = (await h.call("GET", `${BASE}/openapi.json`, { user: null })).json<{ openapi: string }>();
    expect(openapi.openapi).toBe("3.1.0");
  });

  it("metrics count requests per route pattern and status, orchestrator calls and cache lookups, never aliases", async () => {
    await clear();
    await h.call("POST", CONNECTIONS, { body: anAddBody({ alias: "secret-named-lab" }) });
    await h.call("GET", `${BASE}/partner/secret-named-lab/customers`);
    await h.call("GET", `${BASE}/partner/secret-named-lab/customers`);
    const text = (await h.call("GET", "/metrics", { user: null })).text;
    expect(text).toContain(
      'sdwan_http_requests_total{method="POST",route="/rest/plugin/sdwan/connections",status="200"}',
    );
    expect(text).toMatch(
      /sdwan_http_request_duration_seconds_bucket\{le="0.001",method="GET",route="\/rest\/plugin\/sdwan\/partner\/\{alias\}\/customers",status="200"\}/,
    );
    expect(text).toMatch(/sdwan_orchestrator_calls_total\{operation="identify",outcome="ok"\} \d+/);
    expect(text).toMatch(/sdwan_customers_cache_lookups_total\{outcome="hit"\} [1-9]/);
    expect(text).not.toContain("secret-named-lab");
    expect(text).not.toContain("example.net");
  });

  it("sets a request id (echoing a sane incoming one) and security headers", async () => {
    const reply = await h.call("GET", CONNECTIONS, { headers: { "x-request-id": "abc-123" } });
    expect(reply.headers.get("x-request-id")).toBe("abc-123");
    const fresh = await h.call("GET", CONNECTIONS, { headers: { "x-request-id": "bad id\twith spaces" } });
    expect(fresh.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
    // Lists may be kept by the client and revalidated (ETag); every other answer is never stored.
    expect(reply.headers.get("cache-control")).toBe("private, no-cache");
    expect((await h.call("GET", `${CONNECTIONS}/ghost`)).headers.get("cache-control")).toBe("no-store");
    // But the API's description, the same for everyone (docs/interface.md §1).
    expect((await h.call("GET", "/rest/plugin/sdwan/openapi.json")).headers.get("cache-control")).toBe(
      "public, max-age=300",
    );
    expect(reply.headers.get("x-powered-by")).toBeNull();
  });

  it("logs one JSON line per request with its id, never headers or bodies", async () => {
    await h.call("GET", CONNECTIONS, { headers: { "x-request-id": "log-check-1" } });
    await new Promise((resolve) => setImmediate(resolve));
    const entry = h.logs.entries().find((line) => line["requestId"] === "log-check-1");
    expect(entry).toMatchObject({
      level: "info",
      msg: "request",
      method: "GET",
      route: `${BASE}/connections`,
      status: 200,
      user: "admin",
    });
  });
});
