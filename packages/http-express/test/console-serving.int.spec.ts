import { get, type IncomingHttpHeaders } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BASE, startHarness, VIEWER } from "./harness.js";

const rawGet = (
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> =>
  new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    }).on("error", reject);
  });

describe("the operator console's files and what it asks of the API (docs/interface.md §5, §8)", () => {
  it("serves the console without credentials under its own strict policy", async () => {
    await using h = await startHarness();
    const page = await fetch(`${h.service.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp.split("; ")).toEqual(
      expect.arrayContaining([
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "connect-src 'self'",
        "frame-ancestors 'none'",
      ]),
    );
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    expect(page.headers.get("x-frame-options")).toBe("DENY");

    // Every script and style the page names comes from the service, cached for good (its name changes with its content).
    const assets = [...(await page.text()).matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map(
      (match) => match[1],
    );
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const response = await fetch(`${h.service.url}${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    }
  });

  it("sends the compressed twin of a file to a client that accepts it, and the file itself to one that does not", async () => {
    await using h = await startHarness();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(
      await (await fetch(`${h.service.url}/console/`)).text(),
    )?.[1];
    expect(script).toBeDefined();
    const plain = await fetch(`${h.service.url}${script}`, { headers: { "accept-encoding": "identity" } });
    const identity = Buffer.from(await plain.arrayBuffer());
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    for (const [encoding, decode] of [
      ["br", brotliDecompressSync],
      ["gzip", gunzipSync],
    ] as const) {
      // Undici decodes what it receives; node:http shows the bytes as sent.
      const response = await rawGet(`${h.service.url}${script}`, { "accept-encoding": `${encoding}, identity;q=0.5` });
      expect(response.headers["content-encoding"], encoding).toBe(encoding);
      expect(response.headers["content-type"]).toMatch(/^(text|application)\/javascript/);
      expect(response.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect(response.body.length).toBeLessThan(identity.length / 2);
      expect(decode(response.body).equals(identity)).toBe(true);
    }
    // A small file has no twin: as it is, whatever the client accepts.
    const page = await rawGet(`${h.service.url}/console/`, { "accept-encoding": "br" });
    expect([page.status, page.headers["content-encoding"]]).toEqual([200, undefined]);
  });

  it("sends /console to /console/, and a file it does not have to the 404 problem", async () => {
    await using h = await startHarness();
    const bare = await fetch(`${h.service.url}/console`, { redirect: "manual" });
    expect(bare.status).toBe(301);
    expect(bare.headers.get("location")).toBe("/console/");
    const missing = await fetch(`${h.service.url}/console/assets/nothing.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  });

  it("lets the console reach the OpenID provider's origin (discovery, token request) only when it signs in there", async () => {
    const oidc = { SDWAN_OIDC_ISSUER: "http://127.0.0.1:9/realms/ops", SDWAN_OIDC_AUDIENCE: "sdwan-connections" };
    const connectSrc = async (env: Record<string, string>): Promise<string | undefined> => {
      await using h = await startHarness({ env });
      const csp = (await fetch(`${h.service.url}/console/`)).headers.get("content-security-policy") ?? "";
      return csp.split("; ").find((directive) => directive.startsWith("connect-src"));
    };
    expect(await connectSrc({ ...oidc, SDWAN_OIDC_CLIENT_ID: "sdwan-console" })).toBe(
      "connect-src 'self' http://127.0.0.1:9",
    );
    // Bearer tokens only (no client for the console), or no provider: the service's own origin only.
    expect(await connectSrc(oidc)).toBe("connect-src 'self'");
    expect(await connectSrc({})).toBe("connect-src 'self'");
  });

  it("serves no console with SDWAN_CONSOLE=off", async () => {
    await using h = await startHarness({ env: { SDWAN_CONSOLE: "off" } });
    expect((await fetch(`${h.service.url}/console/`)).status).toBe(404);
  });

  it("GET /me names the user and role of the credentials", async () => {
    await using h = await startHarness();
    expect((await h.call("GET", `${BASE}/me`)).json()).toEqual({ user: "admin", role: "admin" });
    expect((await h.call("GET", `${BASE}/me`, { user: VIEWER })).json()).toEqual({ user: VIEWER.name, role: "viewer" });
    expect((await h.call("GET", `${BASE}/me`, { user: null })).status).toBe(401);
    expect((await h.call("POST", `${BASE}/me`)).status).toBe(405);
  });

  it("leaves the Basic challenge out of a 401 when the request says a script sent it", async () => {
    await using h = await startHarness();
    const plain = await h.call("GET", `${BASE}/me`, { user: { name: "admin", password: "wrong-password" } });
    expect(plain.status).toBe(401);
    expect(plain.headers.get("www-authenticate")).toBe('Basic realm="sdwan", charset="UTF-8"');
    const scripted = await h.call("GET", `${BASE}/me`, {
      user: null,
      headers: { "x-requested-with": "XMLHttpRequest" },
    });
    expect(scripted.status).toBe(401);
    expect(scripted.headers.get("www-authenticate")).toBeNull();
    expect(scripted.json()).toMatchObject({ status: 401, title: "Unauthorized" });
  });
});
