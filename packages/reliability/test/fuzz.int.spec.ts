import { request } from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTHORIZATION, BASE, report, startWorld, tally, type World } from "./support.js";

const RUNS = 2_000;

interface Sent {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer | undefined;
}

/** One raw exchange over node:http: any method, any bytes, the path as written. */
const send = (url: string, { method, path, headers, body }: Sent) =>
  new Promise<{ status: number; contentType: string | undefined; text: string }>((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method, headers: { ...headers, ...(body === undefined ? {} : { "content-length": String(body.length) }) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: res.headers["content-type"],
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });

const percentEscapes = fc
  .array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 6 })
  .map((bytes) => bytes.map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join(""));
const segment = fc.oneof(
  fc.constantFrom(
    "lab",
    "LAB",
    "%zz",
    "lab%",
    "%C0%AF",
    "%E0%A4%A",
    "%00",
    "%2e%2e",
    "a%2Fb",
    "%F0%9F%94%91",
    "x".repeat(300),
  ),
  fc.string({ maxLength: 24 }).map(encodeURIComponent),
  percentEscapes,
  fc.tuple(fc.string({ maxLength: 6 }).map(encodeURIComponent), percentEscapes).map(([a, b]) => `${a}${b}`),
);
const query = fc.oneof(
  fc.constant(""),
  fc.constantFrom(
    "?dryrun=true",
    "?force=true",
    "?force=maybe",
    "?verbose=TRUE",
    "?dryrun=true&dryrun=false",
    "?__proto__=1",
    "?x=%zz",
    "?%zz=1",
  ),
  fc
    .tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }))
    .map(([name, value]) => `?${encodeURIComponent(name)}=${encodeURIComponent(value)}`),
);
const path = fc
  .tuple(
    fc.oneof(
      fc.constant(`${BASE}/connections`),
      segment.map((alias) => `${BASE}/connections/${alias}`),
      segment.map((alias) => `${BASE}/partner/${alias}/customers`),
      segment.map((anything) => `${BASE}/${anything}`),
      segment.map((anything) => `/${anything}`),
    ),
    query,
  )
  .map(([route, options]) => `${route}${options}`);

const URL_ = "https://orchestrator.example.net/";
const asBody = (value: unknown) => Buffer.from(JSON.stringify(value));
const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue({ maxDepth: 4 }).map(asBody),
  fc
    .record(
      {
        alias: fc.oneof(fc.string(), fc.constant("lab")),
        orchestratorUrl: fc.oneof(fc.webUrl(), fc.string(), fc.constant(URL_)),
        apiKey: fc.oneof(fc.string(), fc.constant("k")),
      },
      { requiredKeys: [] },
    )
    .map(asBody),
  fc.integer({ min: 1, max: 20_000 }).map((depth) => Buffer.from(`${"[".repeat(depth)}${"]".repeat(depth)}`)),
  fc.integer({ min: 1, max: 5_000 }).map((depth) => Buffer.from(`${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`)),
  fc.constant(Buffer.from(`{"__proto__":{"admin":true},"alias":"proto","orchestratorUrl":"${URL_}","apiKey":"k"}`)),
  fc.constant(
    Buffer.from(`{"constructor":{"prototype":{"x":1}},"alias":"ctor","orchestratorUrl":"${URL_}","apiKey":"k"}`),
  ),
  fc.constant(Buffer.from(`{"alias":"dup","alias":"dup2","orchestratorUrl":"${URL_}","apiKey":"k"}`)),
  fc
    .integer({ min: 60_000, max: 70_000 })
    .map((length) => asBody({ alias: "huge", orchestratorUrl: URL_, apiKey: "k".repeat(length) })),
  fc
    .uint8Array({ minLength: 1, maxLength: 32 })
    .map((bytes) =>
      Buffer.concat([
        Buffer.from(`{"alias":"utf","orchestratorUrl":"${URL_}","apiKey":"k`),
        Buffer.from(bytes),
        Buffer.from('"}'),
      ]),
    ),
);
const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 40,
});
const headers = fc.record(
  {
    "content-type": fc.oneof(
      fc.constantFrom(
        "application/json",
        "application/json; charset=utf-8",
        "application/json; charset=utf-16",
        "application/json;charset=latin1",
        "text/plain",
        "application/problem+json",
        "multipart/form-data; boundary=x",
        "application/x-www-form-urlencoded",
      ),
      printable,
    ),
    "content-encoding": fc.constantFrom("gzip", "deflate", "br", "x-unknown", "identity"),
    "x-request-id": printable,
    accept: printable,
    "accept-encoding": fc.constantFrom("gzip", "br;q=0, gzip;q=0", "*", "x-unknown"),
    "if-none-match": printable,
    authorization: fc.oneof(fc.constant(AUTHORIZATION), fc.constant("Basic Og=="), fc.constant("Bearer x"), printable),
  },
  { requiredKeys: [] },
);
const exchange = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE"),
  path,
  // Most requests authenticated as the admin, so they reach the routes; the rest exercise authentication.
  headers: fc
    .tuple(headers, fc.boolean())
    .map(([chosen, asAdmin]) => (asAdmin ? { ...chosen, authorization: AUTHORIZATION } : chosen)),
  body,
});

describe("HTTP fuzzing against the service process", { timeout: 600_000 }, () => {
  let world: World;

  beforeAll(async () => {
    world = await startWorld({ SDWAN_LOGIN_MAX_FAILURES: "1000000", SDWAN_ORCHESTRATOR_TIMEOUT_MS: "2000" });
    const seeded = await world.service.call("POST", `${BASE}/connections`, {
      body: { alias: "lab", orchestratorUrl: world.simulator.url, apiKey: "sample-partner-key-1" },
    });
    expect(seeded.status).toBe(200);
  });
  afterAll(() => world?.close());

  it(`never answers 5xx; every error is problem+json; a refused request changes nothing (${RUNS} runs)`, async () => {
    const statuses = tally();
    const { service } = world;
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(exchange, async (sent) => {
        const before = (await service.call("GET", `${BASE}/connections`)).text;
        const reply = await send(service.url, sent);
        statuses.add(reply.status);
        expect(reply.status, `${sent.method} ${sent.path}`).toBeLessThan(500);
        if (reply.status >= 400 && sent.method !== "HEAD") {
          expect(reply.contentType, `${sent.method} ${sent.path} → ${reply.status}`).toBe(
            "application/problem+json; charset=utf-8",
          );
          expect(JSON.parse(reply.text)).toMatchObject({
            type: expect.any(String),
            title: expect.any(String),
            status: reply.status,
            detail: expect.any(String),
          });
          expect(
            (await service.call("GET", `${BASE}/connections`)).text,
            `${sent.method} ${sent.path} → ${reply.status} changed the store`,
          ).toBe(before);
        }
      }),
      { numRuns: RUNS, interruptAfterTimeLimit: 240_000 },
    );
    // The generated requests, by status, and the service still answers.
    expect((await service.call("GET", "/healthz")).status).toBe(200);
    expect(service.output()).not.toMatch(/"level":"(error|fatal)"/);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    await report("fuzz", `Last run: ${RUNS} generated requests in ${seconds} s, none 5xx. By status: ${statuses}.`);
  });
});
