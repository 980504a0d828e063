import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import { loadSampleDataset, startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signIn } from "./browser.js";

/**
 * An outside-in pass's findings (keyboard focus and touch targets), each a regression test: where the focus goes
 * after the skip link, a refused or a settled form and a delete, and how large a control is under a finger.
 */
const ADMIN = { user: "admin", password: "console-admin-password" };
// The sample data's first partner: 180 customers, with values as long as "Comunidad de Madrid" and
// "Pioneer Manufacturing Pty Ltd".
const PARTNER_KEY = "sample-partner-key-1";
const DESKTOP = { viewport: { width: 1280, height: 800 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
const LONG_URL = `https://orchestrator-7.example.com/portal/${"a-long-path/".repeat(10)}`;
/** WCAG 2.2's minimum target size (2.5.8), in CSS pixels. */
const MIN_TARGET = 24;

// The customers' cells whose text does not fit them (cut with an ellipsis, or hidden), by their text.
const cutShort = (page: Page): Promise<(string | null)[]> =>
  page
    .getByRole("gridcell")
    .evaluateAll((cells) =>
      cells.filter((cell) => cell.scrollWidth > cell.clientWidth).map((cell) => cell.textContent),
    );

/** The focused element: its tag, id and text, to say where the focus went. */
const focused = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element === null ? "none" : `${element.tagName.toLowerCase()}#${element.id}: ${element.textContent?.trim()}`;
  });

/** Every control on the screen smaller than the minimum target in either dimension (but links inside a sentence). */
const smallTargets = (page: Page, minimum: number): Promise<string[]> =>
  page.evaluate(
    (least) =>
      [...document.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea")]
        .filter((element) => !element.matches(".skip-link:not(:focus)"))
        .filter((element) => getComputedStyle(element).display !== "inline")
        .filter((element) => {
          const box = element.getBoundingClientRect();
          return box.width > 0 && (box.width < least || box.height < least);
        })
        .map((element) => {
          const box = element.getBoundingClientRect();
          return `${element.textContent?.trim()} (${Math.round(box.width)} × ${Math.round(box.height)})`;
        }),
    minimum,
  );

describe("the console with the keyboard and under a finger", () => {
  let dir: string;
  let simulator: Awaited<ReturnType<typeof startOrchestratorSimulator>>;
  let service: ServiceProcess;
  let browser: Browser;

  const newPage = async (options: Parameters<Browser["newContext"]>[0]): Promise<Page> =>
    (await browser.newContext(options)).newPage();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sdwan-console-keys-"));
    simulator = await startOrchestratorSimulator({ data: await loadSampleDataset(), host: "127.0.0.1" });
    service = await startServiceProcess({
      SDWAN_DATA_DIR: join(dir, "data"),
      SDWAN_ADMIN_USER: ADMIN.user,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
    });
    for (const [alias, orchestratorUrl] of [
      ["partner", simulator.url],
      ["lab-1", simulator.url],
      ["lab-2", simulator.url],
      ["lab-with-a-long-url", LONG_URL],
    ]) {
      const added = await service.call("POST", "/rest/plugin/sdwan/connections?force=true", {
        body: { alias, orchestratorUrl, apiKey: PARTNER_KEY },
      });
      expect(added.status).toBe(200);
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await simulator?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("the skip link leads to the content of the page one is on, not to the connections page", async () => {
    const page = await newPage(DESKTOP);
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.goto(`${service.url}/console/#/connections/lab-1`);
    await page.getByRole("heading", { name: "lab-1" }).waitFor();
    await page.getByRole("link", { name: "Skip to content" }).focus();
    await page.keyboard.press("Enter");
    // Regression: its href="#main" was read as a route, which is the connections page.
    expect(new URL(page.url()).hash).toBe("#/connections/lab-1");
    expect(await focused(page)).toBe("h1#: lab-1");
    await page.context().close();
  });

  it("a refused form puts the focus on its first invalid field; a settled one leaves it on the button pressed", async () => {
    const page = await newPage(DESKTOP);
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.goto(`${service.url}/console/#/add`);
    await page.getByRole("heading", { name: "Add a connection" }).waitFor();
    await page.getByRole("button", { name: "Add", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page.locator("#alias-error").waitFor();
    // Regression: the busy (disabled) button dropped the focus to the page's body.
    await expect.poll(() => focused(page)).toBe("input#alias: ");

    await page.keyboard.type("lab-3");
    await page.getByLabel("Orchestrator URL").fill(simulator.url);
    await page.getByLabel("API key").fill(PARTNER_KEY);
    await page.getByRole("button", { name: "Dry run" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("status").getByText("Dry run successful").waitFor();
    expect(await focused(page)).toBe("button#: Dry run");

    // An admin page's form alike: an empty grant's first field.
    await page.goto(`${service.url}/console/#/grants`);
    await page.getByRole("heading", { name: "Grants" }).waitFor();
    await page.getByRole("button", { name: "Add grant" }).focus();
    await page.keyboard.press("Enter");
    await page.locator("#subject-error").waitFor();
    await expect.poll(() => focused(page)).toBe("input#subject: ");
    await page.context().close();
  });

  it("a delete confirmed with the keyboard leaves the focus on the page's heading, not on the body", async () => {
    const page = await newPage(DESKTOP);
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.getByRole("button", { name: "Delete lab-2" }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("dialog", { name: "Delete the connection?" }).waitFor();
    await page.keyboard.press("Tab"); // from Cancel to Delete
    await page.keyboard.press("Enter");
    await page.getByRole("link", { name: "lab-2", exact: true }).waitFor({ state: "detached" });
    expect(await focused(page)).toBe("h1#: Connections");
    await page.context().close();
  });

  it(`on a phone, no control is smaller than ${MIN_TARGET} × ${MIN_TARGET} px (the menu and the sort buttons included), no dialog touches an edge`, async () => {
    const page = await newPage(PHONE);
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    expect(await smallTargets(page, MIN_TARGET)).toEqual([]);
    // A confirmation stays clear of the screen's edges (it touched both).
    await page.getByRole("button", { name: "Delete lab-1" }).tap();
    const dialog = await page.getByRole("dialog", { name: "Delete the connection?" }).boundingBox();
    expect(dialog !== null && dialog.x >= 8 && dialog.x + dialog.width <= PHONE.viewport.width - 8).toBe(true);
    await page.keyboard.press("Escape");
    await page.goto(`${service.url}/console/#/connections/partner/customers`);
    await page.getByRole("grid", { name: "Customers" }).getByRole("row").nth(2).waitFor();
    expect(await smallTargets(page, MIN_TARGET)).toEqual([]);
    await page.context().close();
  });

  it("on a desktop, a long orchestrator URL wraps in its cell: every alias stays on one line, Edit beside Delete", async () => {
    const page = await newPage(DESKTOP);
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.getByRole("link", { name: "lab-with-a-long-url", exact: true }).waitFor();
    // Regression: the URL's cell took the width, so "lab-1" broke after its hyphen and Delete went below Edit.
    const aliasLines = await page
      .locator("table.connections td.title a")
      .evaluateAll((links) => links.map((link) => `${link.textContent}: ${link.getClientRects().length}`));
    expect(aliasLines).toContain("lab-with-a-long-url: 1");
    expect(aliasLines.filter((line) => !line.endsWith(": 1"))).toEqual([]);
    const edit = await page.getByRole("link", { name: "Edit lab-with-a-long-url" }).boundingBox();
    const remove = await page.getByRole("button", { name: "Delete lab-with-a-long-url" }).boundingBox();
    expect(remove?.y).toBe(edit?.y);
    // And each on one line, as tall as the toolbar's Refresh ("Delet|e" was two).
    const refresh = await page.getByRole("button", { name: "Refresh" }).boundingBox();
    expect([edit?.height, remove?.height]).toEqual([refresh?.height, refresh?.height]);
    // Its cell is one of the row's cells: it ends where the row's other cells end (its border in line with theirs).
    const bottoms = await page
      .getByRole("row")
      .filter({ hasText: "lab-with-a-long-url" })
      .getByRole("cell")
      .evaluateAll((cells) => new Set(cells.map((cell) => Math.round(cell.getBoundingClientRect().bottom))).size);
    expect(bottoms).toBe(1);
    await page.context().close();
  });

  it("on a phone, a customer's card shows each of its values whole, none cut short", async () => {
    const page = await newPage(PHONE);
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.goto(`${service.url}/console/#/connections/partner/customers`);
    await page.getByRole("grid", { name: "Customers" }).getByRole("row").nth(2).waitFor();
    // Regression: two values a line, each cut with "…" ("Bastion state: UNC…", "Account number: F…").
    expect(await cutShort(page)).toEqual([]);
    await page.context().close();
  });

  it("a token's secret put away or a token revoked with the keyboard leaves the focus on the page's heading", async () => {
    const page = await newPage(DESKTOP);
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.goto(`${service.url}/console/#/tokens`);
    await page.getByRole("heading", { name: "Service tokens" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("ci");
    await page.getByLabel("Expires in (days)").fill("3");
    await page.getByRole("button", { name: "Make token" }).press("Enter");
    // Regression: Done, and a row's Revoke once confirmed, dropped the focus to the page's body.
    await page.getByRole("button", { name: "Done: I copied it" }).press("Enter");
    expect(await focused(page)).toBe("h1#: Service tokens");
    await page.getByRole("button", { name: "Revoke ci" }).press("Enter");
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).press("Enter");
    await page.getByRole("button", { name: "Revoke ci" }).waitFor({ state: "detached" });
    await expect.poll(() => focused(page)).toBe("h1#: Service tokens");
    await page.context().close();
  });

  it(
    "on a desktop and narrower windows, the customers' values are never cut short, in any row: columns, or cards",
    { timeout: 120_000 },
    async () => {
      // Regression: fixed columns cut "Comunidad de Madrid" at 1280 (a row out of the first view); proportional ones cut
      // values at 920-1000 px, where the grid was kept above a fixed 57rem.
      for (const width of [1280, 1000, 920]) {
        const page = await newPage({ viewport: { width, height: 800 } });
        await signIn(page, service.url, ADMIN.user, ADMIN.password);
        await page.goto(`${service.url}/console/#/connections/partner/customers`);
        await page.getByRole("grid", { name: "Customers" }).getByRole("row").nth(2).waitFor();
        // Every row, a window at a time (the rows in view, and a few around them, are in the page).
        const body = page.locator(".grid-body");
        const step = await body.evaluate((element) => element.clientHeight);
        const seen = new Set<string>();
        const cut: (string | null)[] = [];
        for (let top = 0; ; top += step) {
          await body.evaluate((element, at) => (element.scrollTop = at), top);
          await page.waitForTimeout(50);
          cut.push(...(await cutShort(page)));
          for (const text of await page.getByRole("gridcell").allTextContents()) seen.add(text);
          if (await body.evaluate((element) => element.scrollTop + element.clientHeight >= element.scrollHeight)) break;
        }
        expect(seen, `${width} px`).toContain("Comunidad de Madrid");
        expect(cut, `${width} px`).toEqual([]);
        expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth), `${width} px`).toBe(0);
        await page.context().close();
      }
    },
  );

  it("after signing in and on every page change, the focus is on the page's heading (Add and Edit too)", async () => {
    const page = await newPage(DESKTOP);
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    // Regression: the sign-in form went, and the focus with it; the Add and Edit pages' headings came after it was given.
    await expect.poll(() => focused(page)).toBe("h1#: Connections");
    await page.getByRole("link", { name: "Add connection" }).click();
    await expect.poll(() => focused(page)).toBe("h1#: Add a connection");
    await page.goto(`${service.url}/console/#/connections/lab-1/edit`);
    await expect.poll(() => focused(page)).toBe("h1#: Edit lab-1");
    await page.context().close();
  });

  it("on a small tablet (800 px, wider than a phone's layout), the customers page does not scroll sideways", async () => {
    const page = await newPage({ viewport: { width: 800, height: 1000 } });
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.goto(`${service.url}/console/#/connections/partner/customers`);
    await page.getByRole("grid", { name: "Customers" }).getByRole("row").nth(2).waitFor();
    // Regression: the grid's columns needed 840 px, so the page scrolled sideways and "Account number" was off screen.
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth)).toBe(0);
    expect(await cutShort(page)).toEqual([]);
    await page.context().close();
  });
});
