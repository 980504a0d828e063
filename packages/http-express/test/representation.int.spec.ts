import { gunzipSync, brotliDecompressSync } from "node:zlib";
import { request } from "node:http";
import { aCustomer, createInMemoryOrchestrator, TEST_KEYS, TEST_PARTNER_ID } from "@sdwan-connections/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, anAddBody, BASE, basic, startHarness, type Harness } from "./harness.js";

const CUSTOMERS = `${BASE}/partner/big/customers`;
const customers = Array.from({ length: 200 }, (_, i) => aCustomer({ id: i + 1, name: `Customer ${i + 1}` }));

/** A raw HTTP GET (fetch would decode the body itself): status, headers and the bytes as sent. */
const get = (url: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(url, { headers: { authorization: basic(ADMIN), ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      });
      req.on("error", reject);
      req.end();
    },
  );

describe("customers and lists: serialized once, compressed on request, conditional", () => {
  let h: Harness;
  let plain: string;
  beforeAll(async () => {
    h = await startHarness({
      orchestrator: createInMemoryOrchestrator([
        { apiKey: TEST_KEYS.partner, identity: { kind: "partner", partnerId: TEST_PARTNER_ID }, customers },
      ]),
    });
    await h.call("POST", `${BASE}/connections`, { body: anAddBody({ alias: "big" }) });
    plain = JSON.stringify(customers);
  });
  afterAll(() => h[Symbol.asyncDispose]());

  it("negotiates the encoding: identity, gzip, br, q=0 and unknown encodings", async () => {
    const cases: [string | undefined, string | undefined][] = [
      [undefined, undefined],
      ["identity", undefined],
      ["gzip", "gzip"],
      ["br", "br"],
      ["gzip, br", "gzip"], // equal quality: the client's order decides
      ["br, gzip", "br"],
      ["br;q=0, gzip", "gzip"],
      ["gzip;q=0.5, br;q=0.1", "gzip"],
      ["gzip;q=0, br;q=0", undefined],
      ["compress, x-unknown", undefined],
      ["*", "br"],
    ];
    for (const [acceptEncoding, expected] of cases) {
      const reply = await get(
        `${h.service.url}${CUSTOMERS}`,
        acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding },
      );
      expect(reply.status, acceptEncoding).toBe(200);
      expect(reply.headers["content-encoding"], acceptEncoding).toBe(expected);
      expect(reply.headers["vary"]).toBe("Accept-Encoding");
      const decoded =
        expected === "gzip"
          ? gunzipSync(reply.body)
          : expected === "br"
            ? brotliDecompressSync(reply.body)
            : reply.body;
      expect(decoded.toString(), acceptEncoding).toBe(plain);
      if (expected !== undefined) expect(reply.body.length).toBeLessThan(plain.length / 3);
    }
  });

  it("answers 304 to If-None-Match while the list is unchanged, and a new ETag once it changes", async () => {
    const first = await get(`${h.service.url}${CUSTOMERS}`);
    const etag = first.headers["etag"] as string;
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await get(`${h.service.url}${CUSTOMERS}`, { "if-none-match": etag, "accept-encoding": "gzip" });
    expect([again.status, again.body.length, again.headers["etag"]]).toEqual([304, 0, etag]);
    expect((await get(`${h.service.url}${CUSTOMERS}`, { "if-none-match": `W/"other", ${etag}` })).status).toBe(304);
    expect((await get(`${h.service.url}${CUSTOMERS}`, { "if-none-match": 'W/"other"' })).status).toBe(200);

    // Updating the connection drops its cached customers; the next answer is a new fill of the same data: same tag.
    await h.call("PUT", `${BASE}/connections/big`, { body: { orchestratorUrl: "https://moved.example.net/" } });
    expect((await get(`${h.service.url}${CUSTOMERS}`, { "if-none-match": etag })).status).toBe(304);

    const list = await get(`${h.service.url}${BASE}/connections`);
    await h.call("POST", `${BASE}/connections`, { body: anAddBody({ alias: "another" }) });
    const changed = await get(`${h.service.url}${BASE}/connections`, {
      "if-none-match": list.headers["etag"] as string,
    });
    expect(changed.status).toBe(200);
    expect(changed.headers["etag"]).not.toBe(list.headers["etag"]);
    expect(JSON.parse(changed.body.toString())).toHaveLength(2);
  });

  it("sends small answers uncompressed", async () => {
    const list = await get(`${h.service.url}${BASE}/connections`, { "accept-encoding": "gzip, br" });
    expect(list.headers["content-encoding"]).toBeUndefined();
    expect(list.headers["vary"]).toBe("Accept-Encoding");
  });
});
