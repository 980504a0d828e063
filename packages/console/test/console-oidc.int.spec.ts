import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The REST service's own tests' provider: panva's oidc-provider on 127.0.0.1, with the console's public PKCE client.
import {
  ADMIN_GROUP,
  AUDIENCE,
  CONSOLE_CLIENT_ID,
  startTestProvider,
  VIEWER_GROUP,
  type TestProvider,
} from "../../http-express/test/oidc-provider.js";
import { launchChromium, screenshots, signIn, unlabelledControls } from "./browser.js";

const ADMIN = { user: "admin", password: "console-admin-password" };
const DESKTOP = { width: 1400, height: 900 };
const PHONE = { width: 390, height: 844 };
const STORAGE_KEY = "sdwan-console";

describe("the console signs in at an OpenID provider (authorization code + PKCE), in Debian's chromium", () => {
  let dir: string;
  let provider: TestProvider;
  let service: ServiceProcess;
  let browser: Browser;
  let screenshot: Awaited<ReturnType<typeof screenshots>>;
  let providerButton: string;
  const pageErrors: string[] = [];

  const newPage = async (options: Parameters<Browser["newContext"]>[0]): Promise<Page> => {
    const page = await (await browser.newContext(options)).newPage();
    page.on(
      "console",
      (message) =>
        message.type() === "error" && new URL(page.url()).origin === service.url && pageErrors.push(message.text()),
    );
    page.on("pageerror", (error) => pageErrors.push(error.message));
    return page;
  };

  /** What the tab keeps (sessionStorage), and what it must not (localStorage, cookies of the console's origin). */
  const kept = (page: Page): Promise<{ session: Record<string, string>; local: number; cookies: string }> =>
    page.evaluate(() => ({ session: { ...sessionStorage }, local: localStorage.length, cookies: document.cookie }));

  /** The provider's development sign-in page: the account's id as login, any password (a screenshot named `shot` taken). */
  const signInAtProvider = async (page: Page, account: string, shot?: string): Promise<void> => {
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.locator("input[name=login]").fill(account);
    await page.locator("input[name=password]").fill("any password");
    if (shot !== undefined) await screenshot(page, shot);
    await page.getByRole("button", { name: "Sign-in" }).click();
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sdwan-console-oidc-"));
    provider = await startTestProvider();
    service = await startServiceProcess({
      SDWAN_DATA_DIR: join(dir, "data"),
      SDWAN_ADMIN_USER: ADMIN.user,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_OIDC_ISSUER: provider.issuer,
      SDWAN_OIDC_AUDIENCE: AUDIENCE,
      SDWAN_OIDC_ADMIN_GROUPS: ADMIN_GROUP,
      SDWAN_OIDC_VIEWER_GROUPS: VIEWER_GROUP,
      SDWAN_OIDC_CLIENT_ID: CONSOLE_CLIENT_ID,
    });
    provider.allowConsole(`${service.url}/console/`);
    providerButton = `Sign in with ${new URL(provider.issuer).host}`;
    expect(
      (
        await service.call("POST", "/rest/plugin/sdwan/connections?force=true", {
          body: { alias: "lab", orchestratorUrl: "https://orchestrator.example.net", apiKey: "lab-key-1" },
        })
      ).status,
    ).toBe(200);
    browser = await launchChromium();
    screenshot = await screenshots(join(dir, "screenshots"));
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await provider?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it(
    "on a desktop: signs in at the provider, calls the API with its bearer token (the audit actor oidc:ann), and signs out there",
    { timeout: 60_000 },
    async () => {
      const page = await newPage({ viewport: DESKTOP });
      const authorizations: string[] = [];
      page.on(
        "request",
        (request) =>
          request.url().startsWith(`${service.url}/rest/`) &&
          authorizations.push(request.headers()["authorization"] ?? ""),
      );
      await page.goto(`${service.url}/console/#/connections/lab`);
      await page.getByRole("button", { name: providerButton, exact: true }).waitFor();
      // The local users' form stays beside it.
      await page.getByRole("form", { name: "Sign in" }).getByLabel("User").waitFor();
      expect(await unlabelledControls(page)).toEqual([]);
      await screenshot(page, "sign-in-provider");

      const asked = page.waitForRequest((request) => request.url().startsWith(`${provider.issuer}/auth?`));
      await page.getByRole("button", { name: providerButton, exact: true }).click();
      // Authorization code + PKCE: the provider is asked for a code, with the S256 challenge of a verifier it never sees.
      const authorization = new URL((await asked).url());
      expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
      expect(authorization.searchParams.get("client_id")).toBe(CONSOLE_CLIENT_ID);
      expect(authorization.searchParams.get("redirect_uri")).toBe(`${service.url}/console/`);
      await signInAtProvider(page, "ann", "provider-login");

      // Back at the page it left, the code gone from the address.
      await page.getByRole("heading", { name: "lab" }).waitFor();
      expect(page.url()).toBe(`${service.url}/console/#/connections/lab`);
      expect(await page.getByRole("banner").textContent()).toContain("oidc:ann (admin)");
      const tab = await kept(page);
      expect(Object.keys(tab.session)).toEqual([STORAGE_KEY]); // the round trip's state and verifier are gone
      const token = JSON.parse(tab.session[STORAGE_KEY]!).token as string;
      expect(token).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
      expect([tab.local, tab.cookies]).toEqual([0, ""]);
      expect(authorizations.length).toBeGreaterThan(0);
      expect(authorizations.filter((header) => header !== "" && header !== `Bearer ${token}`)).toEqual([]);

      // A reload stays signed in; a write is audited as the provider's user.
      await page.reload();
      await page.getByRole("heading", { name: "lab" }).waitFor();
      await page.getByRole("button", { name: "Delete" }).click();
      await page
        .getByRole("dialog", { name: "Delete the connection?" })
        .getByRole("button", { name: "Delete" })
        .click();
      await page.getByRole("heading", { name: "Connections" }).waitFor();
      const audit = (await service.call("GET", "/rest/plugin/sdwan/audit")).json<{
        entries: { actor: string; action: string }[];
      }>();
      expect(audit.entries).toContainEqual(expect.objectContaining({ actor: "oidc:ann", action: "delete" }));

      // Sign-out forgets the tab's tokens and ends the session at the provider, which sends the browser back.
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL((url) => url.origin === provider.issuer);
      await page.getByRole("button", { name: "Yes, sign me out" }).click();
      await page.getByRole("button", { name: providerButton, exact: true }).waitFor();
      expect(page.url().startsWith(`${service.url}/console/`)).toBe(true);
      expect((await kept(page)).session).toEqual({});
      // The provider forgot its session too: signing in again asks for the login.
      await page.getByRole("button", { name: providerButton, exact: true }).click();
      await page.locator("input[name=login]").waitFor();
      await page.context().close();
    },
  );

  it(
    "on a phone: the same sign-in, and a token the service refuses leads back to the sign-in, then to the same page",
    { timeout: 60_000 },
    async () => {
      const page = await newPage({ viewport: PHONE, isMobile: true, hasTouch: true });
      await page.goto(`${service.url}/console/#/add`);
      await page.getByRole("button", { name: providerButton, exact: true }).click();
      await signInAtProvider(page, "ann");
      await page.getByRole("heading", { name: "Add a connection" }).waitFor();
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth)).toBe(0);

      // The token refused (here its signature spoiled; an expired one alike: 401 invalid_token): sign in again, the page kept.
      await page.evaluate((key) => {
        const session = JSON.parse(sessionStorage.getItem(key)!) as { token: string };
        sessionStorage.setItem(key, JSON.stringify({ ...session, token: `${session.token.slice(0, -4)}AAAA` }));
      }, STORAGE_KEY);
      await page.reload();
      // Said as the user signed in (at the provider), with the service's reason; never Basic credentials.
      const refused = page.getByRole("alert");
      await refused.getByText("Your sign-in at the OpenID provider was refused", { exact: true }).waitFor();
      expect(await refused.textContent()).toMatch(/OIDC bearer.*The service's answer: ./);
      expect(await refused.textContent()).not.toMatch(/Basic/);
      expect(await page.getByLabel("User").inputValue()).toBe(""); // a provider's user is not a local user
      expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth)).toBe(0);
      await screenshot(page, "phone-sign-in-provider");
      await page.getByRole("button", { name: providerButton, exact: true }).tap();
      // The provider still knows the browser: no login asked, straight back to the page.
      await page.getByRole("heading", { name: "Add a connection" }).waitFor();
      expect(await page.getByRole("banner").textContent()).toContain("oidc:ann (admin)");
      await page.context().close();
    },
  );

  it("keeps the local users' sign-in beside the provider's", async () => {
    const page = await newPage({ viewport: DESKTOP });
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    expect(await page.getByRole("banner").textContent()).toContain("admin (admin)");
    await page.context().close();
  });

  it("logged no error in the console's pages (a CSP violation is one; the refused token's 401 is expected)", () => {
    expect(pageErrors.filter((text) => !/status of 401/.test(text))).toEqual([]);
  });
});
