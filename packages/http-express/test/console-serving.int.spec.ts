import { describe, expect, it } from "vitest";
import { BASE, startHarness, VIEWER } from "./harness.js";

describe("the operator console's files and what it asks of the API (docs/interface.md §5, §8)", () => {
  it("serves the console without credentials under its own strict policy", async () => {
    await using h = await startHarness();
    const page = await fetch(`${h.service.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp.split("; ")).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]));
    expect(csp).not.toMatch(/unsafe|https?:|\*/);
    expect(page.headers.get("x-frame-options")).toBe("DENY");

    // Every script and style the page names comes from the service, cached for good (its name changes with its content).
    const assets = [...(await page.text()).matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const response = await fetch(`${h.service.url}${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    }
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
    const scripted = await h.call("GET", `${BASE}/me`, { user: null, headers: { "x-requested-with": "XMLHttpRequest" } });
    expect(scripted.status).toBe(401);
    expect(scripted.headers.get("www-authenticate")).toBeNull();
    expect(scripted.json()).toMatchObject({ status: 401, title: "Unauthorized" });
  });
});
