import { describe, expect, it } from "vitest";
import { BASE, client } from "./harness.js";
import { bearer, usePostgresInstances } from "./postgres-instances.js";

const { postgres, instance } = usePostgresInstances("http-express-tokens");

/** How long until `call` stops admitting `token` (polled every 20 ms, given up after 3 s). */
const refusedAfter = async (call: ReturnType<typeof client>, token: string, since: number): Promise<number> => {
  for (;;) {
    const status = (await call("GET", `${BASE}/me`, bearer(token))).status;
    const elapsed = performance.now() - since;
    if (status === 401 || elapsed > 3000) return elapsed;
    expect(status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe("service tokens on PostgreSQL (SPEC §11)", () => {
  it("two instances: a token made on one works on the other; its revocation, and a renewal's end of overlap, are seen by the other within 1 s; a restart keeps tokens", async () => {
    const a = await instance();
    let b = await instance();
    try {
      const [callA, callB] = [client(a.url), () => client(b.url)];
      const made = async (name: string) =>
        (await callA("POST", `${BASE}/tokens`, { body: { name, expiresInDays: 1 } })).json<{
          id: string;
          token: string;
        }>();
      const revoked = await made("revoked");
      const renewed = await made("renewed");
      for (const { token } of [revoked, renewed])
        expect((await callB()("GET", `${BASE}/me`, bearer(token))).status).toBe(200);

      // B has just admitted the token (and may trust it for a moment); A revokes it.
      const revoking = performance.now();
      expect((await callA("DELETE", `${BASE}/tokens/${revoked.id}`)).status).toBe(204);
      expect(await refusedAfter(callB(), revoked.token, revoking)).toBeLessThan(1000);

      const renewing = performance.now();
      const renewal = await callA("POST", `${BASE}/tokens/${renewed.id}/renew`, { body: { overlapHours: 0 } });
      expect(renewal.status).toBe(200);
      expect(await refusedAfter(callB(), renewed.token, renewing)).toBeLessThan(1000);
      const { token } = renewal.json<{ token: string }>();
      expect((await callB()("GET", `${BASE}/me`, bearer(token))).json()).toEqual({
        user: "token:renewed",
        role: "viewer",
      });

      await b.close();
      b = await instance();
      expect((await callB()("GET", `${BASE}/me`, bearer(token))).status).toBe(200);
      const rows = JSON.stringify(await postgres().rows("select * from sdwan_service_tokens"));
      expect(rows).not.toContain(token.slice(4));
      expect(rows).not.toContain(renewed.token.slice(4));
    } finally {
      await a.close();
      await b.close();
    }
  });
});
