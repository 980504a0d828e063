import * as E from "fp-ts/lib/Either.js";
import { describe, expect, it } from "vitest";
import { isHostAllowed, portalUrl } from "./url.js";

const join = (base: string) => {
  const url = portalUrl(base, "enterprise/getEnterprise");
  return E.isRight(url) ? url.right.href : url.left;
};

describe("portalUrl", () => {
  it.each([
    ["https://vco.example.net", "https://vco.example.net/portal/rest/enterprise/getEnterprise"],
    ["https://vco.example.net/", "https://vco.example.net/portal/rest/enterprise/getEnterprise"],
    ["https://vco.example.net/vco", "https://vco.example.net/vco/portal/rest/enterprise/getEnterprise"],
    ["https://vco.example.net/vco/", "https://vco.example.net/vco/portal/rest/enterprise/getEnterprise"],
    ["https://vco.example.net/a/b//", "https://vco.example.net/a/b/portal/rest/enterprise/getEnterprise"],
    ["http://10.0.0.5:8080/", "http://10.0.0.5:8080/portal/rest/enterprise/getEnterprise"],
    ["https://VCO.Example.NET:443/x?debug=1#top", "https://vco.example.net/x/portal/rest/enterprise/getEnterprise"],
    ["http://[::1]:9000", "http://[::1]:9000/portal/rest/enterprise/getEnterprise"],
  ])("joins %s", (base, expected) => {
    expect(join(base)).toBe(expected);
  });

  it.each([
    "ftp://vco.example.net/",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "not a url",
    "https://user:pw@vco.example.net/",
  ])("refuses %s as OrchestratorRejected", (base) => {
    const url = portalUrl(base, "enterprise/getEnterprise");
    expect(E.isLeft(url) && url.left._tag).toBe("OrchestratorRejected");
    expect(JSON.stringify(url)).not.toContain("pw@");
  });
});

describe("allowed hosts", () => {
  it("matches exact host names case-insensitively, whatever the port", () => {
    const allowed = ["vco.example.net", "::1"];
    expect(isHostAllowed(new URL("https://VCO.example.NET:8443/"), allowed)).toBe(true);
    expect(isHostAllowed(new URL("http://[::1]:1/"), allowed)).toBe(true);
    expect(isHostAllowed(new URL("https://evil.vco.example.net/"), allowed)).toBe(false);
    expect(isHostAllowed(new URL("https://vco.example.net.evil.com/"), allowed)).toBe(false);
    expect(isHostAllowed(new URL("https://anything/"), undefined)).toBe(true);
  });
});
