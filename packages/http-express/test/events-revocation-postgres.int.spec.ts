import { describe, expect, it, vi } from "vitest";
import { anAddBody, BASE, client } from "./harness.js";
import { usePostgresInstances } from "./postgres-instances.js";
import { openEventStream, type EventStream } from "./sse-client.js";

// docs/reliability.md, issue 36 finding 8: open streams follow revocations and grant changes made on another instance.
const { instance } = usePostgresInstances("http-express-events-revocation");
const EVENTS = `${BASE}/events`;
const SOON = { timeout: 5_000, interval: 20 };
const subjects = (stream: EventStream) => stream.cloudEvents().map((event) => event.subject);

describe("open event streams across two instances on one PostgreSQL (SPEC §11)", { timeout: 120_000 }, () => {
  it("a grant removed on A narrows B's open stream, and a token revoked on A ends B's streams of it, within a second", async () => {
    const a = await instance();
    const b = await instance();
    try {
      const [callA, callB] = [client(a.url), client(b.url)];
      const made = (
        await callA("POST", `${BASE}/tokens`, {
          body: {
            name: "emea",
            expiresInDays: 1,
            grants: [
              { pattern: "emea-*", verb: "read" },
              { pattern: "apac-*", verb: "read" },
            ],
          },
        })
      ).json<{ id: string; token: string }>();
      const asToken = { headers: { authorization: `Bearer ${made.token}` } };
      const streams = await Promise.all([
        openEventStream(`${b.url}${EVENTS}`, asToken),
        openEventStream(`${b.url}${EVENTS}`, asToken),
      ]);
      await using everything = await openEventStream(`${b.url}${EVENTS}`);
      expect(streams.map((stream) => stream.response.status)).toEqual([200, 200]);
      const add = async (alias: string) =>
        expect((await callA("POST", `${BASE}/connections?force=true`, { body: anAddBody({ alias }) })).status).toBe(
          200,
        );
      for (const alias of ["emea-1", "other-1", "apac-1"]) await add(alias);
      await vi.waitFor(() => expect(subjects(everything)).toEqual(["emea-1", "other-1", "apac-1"]), SOON);
      for (const stream of streams)
        await vi.waitFor(() => expect(subjects(stream)).toEqual(["emea-1", "apac-1"]), SOON);

      const apac = (await callA("GET", `${BASE}/grants`))
        .json<{ id: string; pattern: string }[]>()
        .find((grant) => grant.pattern === "apac-*");
      expect((await callA("DELETE", `${BASE}/grants/${apac?.id}`)).status).toBe(204);
      // SPEC §11: within a second, on every instance.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      for (const alias of ["apac-2", "emea-2"]) await add(alias);
      await vi.waitFor(() => expect(subjects(everything)).toContain("emea-2"), SOON);
      for (const stream of streams)
        await vi.waitFor(() => expect(subjects(stream)).toEqual(["emea-1", "apac-1", "emea-2"]), SOON);

      const revoking = performance.now();
      expect((await callA("DELETE", `${BASE}/tokens/${made.id}`)).status).toBe(204);
      await vi.waitFor(() => expect(streams.map((stream) => stream.ended())).toEqual([true, true]), SOON);
      // Measured, with room for a loaded machine (the streams check every 500 ms).
      expect(performance.now() - revoking).toBeLessThan(5_000);
      expect((await callB("GET", EVENTS, { user: null, ...asToken })).status).toBe(401);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
