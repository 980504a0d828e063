import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshots, signIn, unlabelledControls } from "./browser.js";

const ADMIN = { user: "admin", password: "console-admin-password" };
const VIEWPORTS = [
  ["desktop", { width: 1280, height: 900 }],
  ["phone", { width: 390, height: 844 }],
] as const;
const ALIASES = ["emea-paris", "emea-berlin", "apac-tokyo", "lab-1"];
/** What the service token below may do: read the EMEA connections, use Paris, manage the labs. */
const TOKEN_GRANTS = [
  { pattern: "emea-*", verb: "read" },
  { pattern: "EMEA-PARIS", verb: "use" },
  { pattern: "lab-*", verb: "manage" },
];

/** How far the page reaches past the window's right edge (0 when nothing scrolls sideways). */
const sidewaysOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth);

describe("grants in the console (SPEC §11): the Grants page, the Access panel, controls by verb", () => {
  let dir: string;
  let simulator: Awaited<ReturnType<typeof startOrchestratorSimulator>>;
  let service: ServiceProcess;
  let browser: Browser;
  let screenshot: Awaited<ReturnType<typeof screenshots>>;

  /** A REST call as the admin. */
  const asAdmin = (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${service.url}/rest/plugin/sdwan${path}`, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString("base64")}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  /** A page in a context of its own, and every error it logs (a refused call among them). */
  const newPage = async (viewport: { width: number; height: number }): Promise<[Page, string[]]> => {
    const page = await (await browser.newContext({ viewport })).newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
    page.on("pageerror", (error) => errors.push(error.message));
    return [page, errors];
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sdwan-console-grants-"));
    simulator = await startOrchestratorSimulator({
      generate: { partners: 1, enterprisesPerPartner: 3 },
      host: "127.0.0.1",
    });
    service = await startServiceProcess({
      SDWAN_DATA_DIR: join(dir, "data"),
      SDWAN_ADMIN_USER: ADMIN.user,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
    });
    for (const alias of ALIASES) {
      const added = await asAdmin("POST", "/connections?force=true", {
        alias,
        orchestratorUrl: simulator.url,
        apiKey: `not-a-key-of-${alias}`,
      });
      expect(added.status).toBe(200);
    }
    browser = await launchChromium();
    screenshot = await screenshots(join(dir, "screenshots"));
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await simulator?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  for (const [name, viewport] of VIEWPORTS) {
    it(`an admin adds a grant (errors beside their fields, a duplicate said in words), sees it in the connection's Access panel, and deletes it after a confirmation (${name})`, async () => {
      const [page] = await newPage(viewport);
      await signIn(page, service.url, ADMIN.user, ADMIN.password);
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Grants" }).click();
      await page.getByRole("heading", { name: "Grants", exact: true }).waitFor();
      await page.getByText("No grants: only the roles apply.").waitFor();

      const form = page.getByRole("form", { name: "Add a grant" });
      await page.getByLabel("Subject").fill("emea");
      await page.getByLabel("Alias pattern").fill("emea/*");
      await form.getByRole("button", { name: "Add grant" }).click();
      for (const field of ["subject", "pattern"]) {
        await page.locator(`#${field}-error`).waitFor();
        expect(await page.locator(`#${field}`).getAttribute("aria-invalid")).toBe("true");
        expect(await page.locator(`#${field}`).getAttribute("aria-describedby")).toContain(`${field}-error`);
      }

      await page.getByLabel("Subject").fill("group:emea");
      await page.getByLabel("Alias pattern").fill("emea-*");
      await page.getByLabel("Verb").selectOption("use");
      await form.getByRole("button", { name: "Add grant" }).click();
      await page.getByRole("status").getByText("Granted: group:emea use emea-*.").waitFor();
      const row = page.getByRole("row", { name: /group:emea/ });
      await row.locator("td", { hasText: /^use$/ }).waitFor();
      expect(await page.locator("#subject").getAttribute("aria-invalid")).toBe("false");

      // The same in another case: the service's 409, in words.
      await page.getByLabel("Subject").fill("group:emea");
      await page.getByLabel("Alias pattern").fill("EMEA-*");
      await page.getByLabel("Verb").selectOption("use");
      await form.getByRole("button", { name: "Add grant" }).click();
      await page.getByRole("alert").getByText("This grant exists already").waitFor();
      expect(await page.getByRole("alert").textContent()).toContain("group:emea use EMEA-* is granted already");
      expect(await row.count()).toBe(1);
      expect(await unlabelledControls(page)).toEqual([]);
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, name === "phone" ? "phone-grants" : "grants");

      // The connection's Access panel names who the grant gives what.
      await page.goto(`${service.url}/console/#/connections/emea-paris`);
      const access = page.getByRole("region", { name: "Access" });
      await access
        .getByRole("row", { name: /group:emea/ })
        .getByText("read, use")
        .waitFor();
      await page.goto(`${service.url}/console/#/connections/apac-tokyo`);
      await page.getByRole("region", { name: "Access" }).getByText("No grant covers this connection.").waitFor();

      // Deleting asks first; Cancel keeps the grant.
      await page.goto(`${service.url}/console/#/grants`);
      const remove = page.getByRole("button", { name: "Delete group:emea use emea-*" });
      await remove.click();
      const dialog = page.getByRole("dialog", { name: "Delete the grant?" });
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "hidden" });
      expect(await row.count()).toBe(1);
      await remove.click();
      await dialog.getByRole("button", { name: "Delete" }).click();
      await page.getByRole("status").getByText("Deleted: group:emea use emea-*.").waitFor();
      await page.getByText("No grants: only the roles apply.").waitFor();
      expect(await (await asAdmin("GET", "/grants")).json()).toEqual([]);
      await page.context().close();
    });
  }

  // After the admin's: the tokens' grants are listed on the Grants page too.
  for (const [name, viewport] of VIEWPORTS) {
    it(`a service token without a role sees only what its grants let it read, and only the controls their verbs allow (${name})`, async () => {
      const created = await asAdmin("POST", "/tokens", {
        name: `emea-team-${name}`,
        expiresInDays: 1,
        grants: TOKEN_GRANTS,
      });
      expect(created.status).toBe(201);
      const { token } = (await created.json()) as { token: string };
      const [page, errors] = await newPage(viewport);
      // The console takes a bearer token from the tab's session, as after a sign-in: GET /me checks it.
      await page.goto(`${service.url}/console/`);
      await page.evaluate(
        ([user, bearer]) => sessionStorage.setItem("sdwan-console", JSON.stringify({ user, token: bearer })),
        [`token:emea-team-${name}`, token] as const,
      );
      await page.reload();
      await page.getByRole("heading", { name: "Connections" }).waitFor();
      expect(await page.getByRole("banner").textContent()).toContain(`token:emea-team-${name} (no role)`);
      expect(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Grants" }).count()).toBe(
        0,
      );

      // Only what it may read; Add (it manages lab-*), Edit and Delete on what it manages only.
      await page.getByText("3 connections").waitFor();
      expect(await page.getByRole("link", { name: "apac-tokyo" }).count()).toBe(0);
      await page.getByRole("link", { name: "Add connection" }).waitFor();
      expect(await page.getByRole("button", { name: /^Delete / }).allTextContents()).toHaveLength(1);
      await page.getByRole("button", { name: "Delete lab-1" }).waitFor();
      await page.getByRole("link", { name: "Edit lab-1" }).waitFor();
      expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);

      // read: the stored form, no validation, no Edit or Delete.
      await page.getByRole("link", { name: "emea-berlin" }).click();
      await page
        .getByRole("region", { name: "Validation" })
        .getByText(/may only read this connection/)
        .waitFor();
      await page.getByRole("region", { name: "Stored" }).getByText("Orchestrator URL").waitFor();
      expect(await page.getByRole("link", { name: "Edit" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Delete" }).count()).toBe(0);
      expect(await page.getByRole("region", { name: "Access" }).count()).toBe(0);

      // use: validated, still no Edit or Delete.
      await page.goto(`${service.url}/console/#/connections/emea-paris`);
      await page.getByTestId("valid").waitFor();
      await page.getByRole("region", { name: "Stored" }).getByText("Orchestrator URL").waitFor();
      expect(await page.getByRole("link", { name: "Edit" }).count()).toBe(0);
      expect(await page.getByRole("button", { name: "Delete" }).count()).toBe(0);

      // manage: Edit and Delete.
      await page.goto(`${service.url}/console/#/connections/lab-1`);
      await page.getByRole("link", { name: "Edit" }).waitFor();
      await page.getByRole("button", { name: "Delete" }).waitFor();
      await page.getByRole("link", { name: "Edit" }).click();
      await page.getByRole("heading", { name: "Edit lab-1" }).waitFor();

      // Not its pages: the grants, and editing what it may only use.
      for (const fragment of ["#/grants", "#/connections/emea-paris/edit"]) {
        await page.goto(`${service.url}/console/${fragment}`);
        await page.getByRole("heading", { name: "Not allowed" }).waitFor();
      }
      // It asked nothing it may not: no call was refused.
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }
});
