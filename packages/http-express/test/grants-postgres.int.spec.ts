import { describe, expect, it } from "vitest";
import { anAddBody, BASE, client } from "./harness.js";
import { bearer, usePostgresInstances } from "./postgres-instances.js";

const { instance } = usePostgresInstances("http-express-grants");

/** How long until `seen` holds for what `call` lists to `token` (polled every 20 ms, given up after 3 s). */
const listedAfter = async (
  call: ReturnType<typeof client>,
  token: string,
  since: number,
  seen: (aliases: readonly string[]) => boolean,
): Promise<number> => {
  for (;;) {
    const aliases = (await call("GET", `${BASE}/connections`, bearer(token)))
      .json<{ alias: string }[]>()
      .map(({ alias }) => alias);
    const elapsed = performance.now() - since;
    if (seen(aliases) || elapsed > 3000) return elapsed;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe("grants on PostgreSQL (SPEC §11)", () => {
  it("two instances: a grant added or removed on one takes effect on the other within 1 s", async () => {
    const a = await instance();
    const b = await instance();
    try {
      const [callA, callB] = [client(a.url), client(b.url)];
      for (const alias of ["emea-1", "apac-1"])
        expect((await callA("POST", `${BASE}/connections?force=true`, { body: anAddBody({ alias }) })).status).toBe(
          200,
        );
      const made = await callA("POST", `${BASE}/tokens`, {
        body: { name: "team", expiresInDays: 1, grants: [{ pattern: "emea-*", verb: "read" }] },
      });
      const { token } = made.json<{ token: string }>();
      // B has read the grants (and keeps them in memory) before A changes them.
      expect((await callB("GET", `${BASE}/connections`, bearer(token))).json()).toEqual([
        { alias: "emea-1", orchestratorUrl: anAddBody().orchestratorUrl },
      ]);
      expect((await callB("GET", `${BASE}/connections/apac-1?stored=true`, bearer(token))).status).toBe(404);

      const adding = performance.now();
      const added = await callA("POST", `${BASE}/grants`, {
        body: { subject: "token:team", pattern: "APAC-*", verb: "read" },
      });
      expect(added.status).toBe(201);
      expect(await listedAfter(callB, token, adding, (aliases) => aliases.includes("apac-1"))).toBeLessThan(1000);
      expect((await callB("GET", `${BASE}/connections/apac-1?stored=true`, bearer(token))).status).toBe(200);

      const removing = performance.now();
      expect((await callA("DELETE", `${BASE}/grants/${added.json<{ id: string }>().id}`)).status).toBe(204);
      expect(await listedAfter(callB, token, removing, (aliases) => !aliases.includes("apac-1"))).toBeLessThan(1000);
      expect((await callB("GET", `${BASE}/connections/apac-1?stored=true`, bearer(token))).status).toBe(404);
      // The change is in the audit trail both instances share.
      const audit = await callB("GET", `${BASE}/audit`);
      expect(
        audit
          .json<{ entries: { action: string }[] }>()
          .entries.map(({ action }) => action)
          .filter((action) => action.startsWith("grant-")),
      ).toEqual(["grant-remove", "grant-add", "grant-add"]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  // Issue 36: the audit page's cursor told a hidden alias from an unknown one; two instances share one trail.
  it("two instances: audit pages and cursors of a principal without a role are the same, and tell nothing hidden", async () => {
    const a = await instance();
    const b = await instance();
    try {
      const [callA, callB] = [client(a.url), client(b.url)];
      const add = async (call: typeof callA, alias: string) =>
        expect((await call("POST", `${BASE}/connections?force=true`, { body: anAddBody({ alias }) })).status).toBe(200);
      await add(callA, "team-1");
      const made = await callA("POST", `${BASE}/tokens`, {
        body: { name: "auditor", expiresInDays: 1, grants: [{ pattern: "team-*", verb: "read" }] },
      });
      const { token } = made.json<{ token: string }>();
      // Hidden changes on both instances, before and after the one the token reads.
      await add(callB, "other-1");
      await add(callA, "team-2");
      await Promise.all([add(callA, "other-2"), add(callB, "other-3")]);
      const pagesOf = async (call: typeof callA) => {
        const pages: { entries: { id: string; alias: string }[]; next: string | null }[] = [];
        for (let before: string | null = ""; before !== null;) {
          const answer = await call(
            "GET",
            `${BASE}/audit?limit=1${before === "" ? "" : `&before=${before}`}`,
            bearer(token),
          );
          const page = answer.json<(typeof pages)[number]>();
          pages.push(page);
          before = page.next;
        }
        return pages;
      };
      const [pagesA, pagesB] = [await pagesOf(callA), await pagesOf(callB)];
      expect(pagesA.map(({ entries }) => entries.map(({ alias }) => alias))).toEqual([["team-2"], ["team-1"], []]);
      expect(pagesA.map(({ next }) => next)).toEqual([pagesA[0]?.entries[0]?.id, pagesA[1]?.entries[0]?.id, null]);
      expect(pagesB).toEqual(pagesA);
      for (const call of [callA, callB]) {
        const hidden = await call("GET", `${BASE}/audit?alias=other-1&limit=1`, bearer(token));
        const unknown = await call("GET", `${BASE}/audit?alias=never-was&limit=1`, bearer(token));
        expect([hidden.status, hidden.json()]).toEqual([200, { entries: [], next: null }]);
        expect(unknown.text).toBe(hidden.text);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
