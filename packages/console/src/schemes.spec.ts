import { describe, expect, it } from "vitest";
import { providerUnavailable, refusal, schemeOf } from "./schemes.js";

const BASIC_WORDS = "Valid HTTP Basic credentials are required.";
const unauthorized = { type: "urn:sdwan-connections:problem:unauthorized", title: "Unauthorized", status: 401 };
const generic = { ...unauthorized, detail: BASIC_WORDS };
const INVALID_TOKEN = 'Bearer realm="sdwan", error="invalid_token"';

describe("refused credentials, named as the user signed in", () => {
  it("reads the scheme from the Authorization header", () => {
    expect(schemeOf("Basic YWRtaW46cHc=")).toBe("password");
    expect(schemeOf("Bearer sdc_1.YWRtaW4.AAAA")).toBe("session");
    expect(schemeOf("Bearer sdw_AAAA")).toBe("token");
    expect(schemeOf("Bearer eyJhbGciOiJSUzI1NiJ9.e30.sig")).toBe("provider");
  });

  // Regression (issue 38): a refused bearer token was shown the service's words about HTTP Basic credentials.
  it("never speaks of Basic credentials to a bearer token's user", () => {
    for (const header of ["Bearer sdc_1.YWRtaW4.AAAA", "Bearer sdw_AAAA", "Bearer eyJ.e30.sig"]) {
      const refused = refusal(header, generic, null);
      expect(`${refused.title} ${refused.detail}`).not.toContain(BASIC_WORDS);
      expect(refused.status).toBe(401);
    }
    expect(refusal("Bearer sdw_AAAA", generic, null).title).toBe("The service token was refused");
    expect(refusal("Bearer eyJ.e30.sig", generic, null).detail).toContain("(OIDC bearer)");
    expect(refusal("Bearer sdc_1.YWRtaW4.AAAA", generic, null).detail).toContain("user name and password (HTTP Basic)");
    expect(refusal("Basic YWRtaW46cHc=", generic, null).detail).toContain("(HTTP Basic)");
  });

  it("keeps the service's reason when it checked the bearer token as one (error=invalid_token)", () => {
    const expired = { ...unauthorized, detail: "The bearer token was refused: expired." };
    expect(refusal("Bearer eyJ.e30.sig", expired, INVALID_TOKEN).detail).toMatch(
      /OIDC bearer.*The service's answer: The bearer token was refused: expired\.$/,
    );
    const revoked = { ...expired, detail: "The service token was refused: unknown, revoked or expired." };
    expect(refusal("Bearer sdw_AAAA", revoked, `Basic realm="sdwan", ${INVALID_TOKEN}`).detail).toContain(
      "The service's answer: The service token was refused: unknown, revoked or expired.",
    );
    // A password is never a bearer token: the challenge says nothing about it.
    expect(refusal("Basic YWRtaW46cHc=", generic, INVALID_TOKEN).detail).not.toContain("The service's answer");
  });

  it("says a provider that cannot be reached to the provider's user, by the problem's tag", () => {
    const unavailable = {
      type: "urn:sdwan-connections:problem:identity-provider-unavailable",
      title: "The OpenID provider cannot be reached",
      status: 503,
      detail: "The OpenID provider's keys cannot be read right now; HTTP Basic credentials still work.",
    };
    expect(providerUnavailable(unavailable)).toMatchObject({ status: 503 });
    expect(providerUnavailable(unavailable)?.detail).toContain("(OIDC bearer)");
    expect(providerUnavailable(unavailable)?.detail).not.toContain("Basic");
    expect(providerUnavailable({ ...unavailable, type: "urn:sdwan-connections:problem:store-unavailable" })).toBe(
      undefined,
    );
  });
});
