import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import bcrypt from "bcryptjs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshots, signIn, unlabelledControls } from "./browser.js";

const ADMIN = { user: "admin", password: "console-admin-password" };
const VIEWER = { user: "viewer", password: "console-viewer-password" };
const CUSTOMERS = 10_000;
const PARTNER_KEY = "generated-partner-key-1";
const PHONE = { width: 390, height: 844 };

/** How far the page reaches past the window's right edge (0 when nothing scrolls sideways). */
const sidewaysOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth);

/** Whether the element is wholly inside the window's width. */
const withinWidth = async (page: Page, selector: Parameters<Page["locator"]>[0]): Promise<boolean> => {
  const box = await page.locator(selector).boundingBox();
  return box !== null && box.x >= 0 && box.x + box.width <= (page.viewportSize()?.width ?? 0);
};

/**
 * Every control (link, button, input, grid, focusable) that reaches past the window's right edge, or starts
 * left of it; but the skip link, parked off the screen until it has the focus.
 */
const controlsOffScreen = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>("a[href], button, input, select, textarea, [role=grid], [tabindex]")]
      .filter((element) => !element.matches(".skip-link:not(:focus)"))
      .filter((element) => {
        const box = element.getBoundingClientRect();
        return box.width > 0 && (box.left < 0 || box.right > innerWidth);
      })
      .map((element) => `${element.outerHTML.slice(0, 100)} (${Math.round(element.getBoundingClientRect().right)} px)`),
  );

/** Every <time> drawn on more than one line, or without its ISO 8601 instant in a tooltip. */
const badTimes = (page: Page): Promise<string[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll("time")]
      .filter(
        (time) =>
          time.getClientRects().length !== 1 ||
          time.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(time).lineHeight || "20") ||
          time.title !== time.dateTime,
      )
      .map((time) => time.outerHTML),
  );

describe("the console in Debian's chromium, against the service and the orchestrator simulator", () => {
  let dir: string;
  let simulator: Awaited<ReturnType<typeof startOrchestratorSimulator>>;
  let service: ServiceProcess;
  let browser: Browser;
  let admin: Page;
  let screenshot: Awaited<ReturnType<typeof screenshots>>;
  /** Every URL a page asked for, and every error it logged (CSP violations included). */
  const requested: string[] = [];
  const pageErrors: string[] = [];

  const newPage = async (
    options: Parameters<Browser["newContext"]>[0] = { viewport: { width: 1280, height: 900 } },
  ): Promise<Page> => {
    const page = await (await browser.newContext(options)).newPage();
    page.on("request", (request) => requested.push(request.url()));
    page.on("console", (message) => message.type() === "error" && pageErrors.push(message.text()));
    page.on("pageerror", (error) => pageErrors.push(error.message));
    return page;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sdwan-console-"));
    const htpasswd = join(dir, "users.htpasswd");
    await writeFile(htpasswd, `${VIEWER.user}:${bcrypt.hashSync(VIEWER.password, 4)}\n`);
    simulator = await startOrchestratorSimulator({
      generate: { partners: 1, enterprisesPerPartner: CUSTOMERS },
      host: "127.0.0.1",
    });
    service = await startServiceProcess({
      SDWAN_DATA_DIR: join(dir, "data"),
      SDWAN_ADMIN_USER: ADMIN.user,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_HTPASSWD_FILE: htpasswd,
      SDWAN_VIEWERS: VIEWER.user,
      SDWAN_HEALTH_INTERVAL_S: "5",
    });
    browser = await launchChromium();
    screenshot = await screenshots(join(dir, "screenshots"));
    admin = await newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await simulator?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("serves the console under a strict CSP, and an admin signs in with the keyboard", async () => {
    const response = await fetch(`${service.url}/console/`);
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(await response.text()).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script

    // No OpenID provider configured: GET /auth/config says so, and the sign-in is the form alone.
    const authConfig = admin.waitForResponse((response) => response.url().endsWith("/auth/config"));
    await admin.goto(`${service.url}/console/`);
    expect(await (await authConfig).json()).toEqual({ oidc: null });
    expect(await admin.getByRole("button", { name: /^Sign in with/ }).count()).toBe(0);
    await screenshot(admin, "sign-in");
    await signIn(admin, service.url, ADMIN.user, ADMIN.password);
    expect(await admin.getByRole("banner").textContent()).toContain("admin (admin)");
  });

  it("refuses wrong credentials on the page, without the browser's own dialog", async () => {
    const page = await newPage();
    await page.goto(`${service.url}/console/`);
    await page.getByLabel("User").fill(ADMIN.user);
    await page.getByLabel("Password").fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    // In the words of the scheme used: a user name and password (HTTP Basic).
    await page.getByRole("alert").getByText("User name or password refused").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("(HTTP Basic)");
    // The user name stays, only the password is emptied, and it has the focus for the next try.
    expect(await page.getByLabel("User").inputValue()).toBe(ADMIN.user);
    expect(await page.getByLabel("Password").inputValue()).toBe("");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("password");
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Connections" }).waitFor();
    await page.context().close();
  });

  it("keeps the session through a reload, for the tab only, and never stores the password", async () => {
    const page = await newPage();
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.evaluate(() => (location.hash = "#/add"));
    await page.getByRole("heading", { name: "Add a connection" }).waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Add a connection" }).waitFor();
    expect(await page.getByRole("banner").textContent()).toContain("admin (admin)");
    const stored = await page.evaluate(() =>
      JSON.stringify({ session: { ...sessionStorage }, local: { ...localStorage }, cookies: document.cookie }),
    );
    expect(stored).toContain("sdc_");
    expect(stored).not.toContain(ADMIN.password);
    expect(stored).not.toContain(Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString("base64"));
    // Another tab of the same browser is not signed in.
    const other = await page.context().newPage();
    await other.goto(`${service.url}/console/`);
    await other.getByRole("form", { name: "Sign in" }).waitFor();
    // Signing out forgets the session, and a reload does not bring it back; the user name stays.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.reload();
    await page.getByRole("form", { name: "Sign in" }).waitFor();
    expect(await page.getByLabel("User").inputValue()).toBe(ADMIN.user);
    // A session the service no longer accepts asks for the password again, the user name kept.
    await page.evaluate(() =>
      sessionStorage.setItem(
        "sdwan-console",
        JSON.stringify({ user: "admin", token: "sdc_1.YWRtaW4.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }),
      ),
    );
    await page.reload();
    // Said as the user signed in: with a user name and password, never another scheme's words.
    await page.getByRole("alert").getByText("Your session has ended", { exact: true }).waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("user name and password (HTTP Basic)");
    expect(await page.getByLabel("User").inputValue()).toBe(ADMIN.user);
    await page.context().close();
  });

  it("shows a problem+json error field by field", async () => {
    await admin.getByRole("link", { name: "Add connection" }).click();
    await admin.getByLabel("Alias").fill("not an alias!");
    await admin.getByLabel("Orchestrator URL").fill("ftp://orchestrator.example");
    await admin.getByRole("button", { name: "Add", exact: true }).click();
    for (const field of ["alias", "orchestratorUrl", "apiKey"]) {
      await admin.locator(`#${field}-error`).waitFor();
      expect(await admin.locator(`#${field}`).getAttribute("aria-invalid")).toBe("true");
      expect(await admin.locator(`#${field}`).getAttribute("aria-describedby")).toContain(`${field}-error`);
    }
    expect(await admin.locator("#alias-error").textContent()).not.toBe("");
    expect(await unlabelledControls(admin)).toEqual([]);
    await screenshot(admin, "add-errors");
  });

  it("adds a connection against the simulator (dry run first) and shows it valid; the key never stays in the page", async () => {
    await admin.getByLabel("Alias").fill("partner-lab");
    await admin.getByLabel("Orchestrator URL").fill(simulator.url);
    await admin.getByLabel("API key").fill(PARTNER_KEY);
    await admin.getByRole("button", { name: "Dry run" }).click();
    await admin.getByRole("status").getByText("Dry run successful").waitFor();
    // The key stays in its field for the life of the form: a dry run does not ask for it again.
    expect(await admin.getByLabel("API key").inputValue()).toBe(PARTNER_KEY);
    await admin.getByRole("button", { name: "Add", exact: true }).click();
    await admin.getByRole("heading", { name: "partner-lab" }).waitFor();
    await admin.getByTestId("valid").getByText("valid", { exact: true }).waitFor();
    await admin.getByText("partner", { exact: true }).waitFor();
    expect(await admin.content()).not.toContain(PARTNER_KEY);
    const fingerprint = await admin.locator("dt:text('Key fingerprint') + dd").textContent();
    expect(fingerprint).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await admin.getByRole("region", { name: "Audit trail" }).getByText("add", { exact: true }).waitFor();
    expect(await unlabelledControls(admin)).toEqual([]);
  });

  it("lists the connection with its background health state", { timeout: 60_000 }, async () => {
    await admin.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Connections" }).click();
    // The health monitor checks each connection once per 5 s interval, at a random moment of it.
    await expect
      .poll(
        async () => {
          await admin.getByRole("button", { name: "Refresh" }).click();
          return admin
            .getByRole("row", { name: /partner-lab/ })
            .getByText("valid", { exact: true })
            .count();
        },
        { timeout: 20_000, interval: 1_000 },
      )
      .toBe(1);
    // The last known state says when it was checked.
    expect(
      await admin
        .getByRole("row", { name: /partner-lab/ })
        .locator("time")
        .getAttribute("datetime"),
    ).toMatch(/^\d{4}-\d\d-\d\dT/);
    await screenshot(admin, "connections");
    expect(await unlabelledControls(admin)).toEqual([]);
    await admin.getByRole("link", { name: "partner-lab", exact: true }).click();
    await admin.getByRole("region", { name: "Health" }).getByRole("cell", { name: "valid" }).first().waitFor();
    await admin.getByTestId("valid").getByText("valid", { exact: true }).waitFor();
    await admin.getByRole("region", { name: "Audit trail" }).getByText("add", { exact: true }).waitFor();
    await screenshot(admin, "connection");
  });

  it(
    "shows the partner's 10,000 customers in a virtualised table and on the map; a click on a point shows its customer",
    { timeout: 60_000 },
    async () => {
      await admin.getByRole("link", { name: "Customers" }).click();
      await admin.getByText(`${CUSTOMERS} customers`, { exact: true }).waitFor({ timeout: 20_000 });
      const points = admin.locator("svg .places circle");
      expect(await points.count()).toBeGreaterThan(5);
      const grid = admin.getByRole("grid", { name: "Customers" });
      expect(await grid.getAttribute("aria-rowcount")).toBe(String(CUSTOMERS + 1));
      expect(await grid.locator(".grid-body [role=row]").count()).toBeLessThan(60); // only the rows in view are in the page

      // The map's land is drawn from the console's own file: the page asked nothing of another origin.
      await admin.locator("svg path.land").waitFor();
      expect(requested.filter((url) => !url.startsWith(service.url))).toEqual([]);

      await points.last().click(); // drawn last: on top of any point it overlaps
      const chosen = admin.getByRole("region", { name: "Chosen customer" });
      await expect.poll(() => chosen.locator("h2").textContent()).not.toBe("No customer chosen");
      // A point of several customers lists them; choosing one shows it, with its fields.
      const listed = chosen.getByRole("button");
      if ((await listed.count()) > 0) {
        const name = await listed.first().textContent();
        await listed.first().click();
        await expect.poll(() => chosen.locator("h2").textContent()).toBe(name);
      }
      await chosen.locator("dt", { hasText: "latitude" }).waitFor();
      await screenshot(admin, "customers");

      // The map's points with the keyboard: one stop, arrows west to east, Enter shows the point's customers.
      const places = admin.getByRole("listbox", { name: "Places on the map" });
      await places.focus();
      await admin.keyboard.press("Home");
      const westmost = await admin.locator("svg .places circle.active").getAttribute("aria-label");
      await admin.keyboard.press("ArrowRight");
      await admin.keyboard.press("ArrowLeft");
      expect(await admin.locator("svg .places circle.active").getAttribute("aria-label")).toBe(westmost);
      await admin.keyboard.press("Enter");
      await expect.poll(() => chosen.locator("h2").textContent()).toBe(westmost); // a customer's name, or "14 customers in Seattle"

      // Sort by name, descending: the header says so, and the first row is the last name.
      const nameHeader = admin.getByRole("columnheader", { name: "Name" });
      await nameHeader.getByRole("button").click();
      await nameHeader.getByRole("button").click();
      expect(await nameHeader.getAttribute("aria-sort")).toBe("descending");
      const names = await admin.evaluate(() =>
        [...document.querySelectorAll(".grid-body [role=row] [role=gridcell]:first-child")].map(
          (cell) => cell.textContent ?? "",
        ),
      );
      expect(names.slice(0, 5)).toEqual(
        [...names.slice(0, 5)].sort((a, b) => b.localeCompare(a, undefined, { numeric: true, sensitivity: "base" })),
      );

      // The filter narrows table and map alike.
      await admin.getByLabel("Filter customers").fill("Tokyo");
      await admin.getByText(/^\d+ of 10000 customers$/).waitFor();
      await expect.poll(() => points.count()).toBeLessThanOrEqual(2); // one city: its customers are within 0.2° of it

      // The keyboard alone reaches the last row and shows it.
      await grid.focus();
      await admin.keyboard.press("End");
      await admin.keyboard.press("Enter");
      const lastRow = grid.locator(`[role=row][aria-rowindex="${await grid.getAttribute("aria-rowcount")}"]`);
      await expect.poll(() => lastRow.getAttribute("aria-selected")).toBe("true"); // once the scroll has rendered it
      expect(await chosen.locator("h2").textContent()).toBe(
        await lastRow.locator("[role=gridcell]").first().textContent(),
      );
      expect(await unlabelledControls(admin)).toEqual([]);

      // A filter that matches nothing says so, and forgets the chosen customer.
      await admin.getByLabel("Filter customers").fill("no-such-customer");
      await admin.getByRole("status").getByText(`No customer matches “no-such-customer” (of ${CUSTOMERS})`).waitFor();
      await expect.poll(() => chosen.locator("h2").textContent()).toBe("No customer chosen");
      expect(await chosen.locator("dl").count()).toBe(0);
      expect(await points.count()).toBe(0);
      await admin.getByLabel("Filter customers").fill("");
    },
  );

  it(
    "draws one mark per place: a click on a grouped mark lists every one of its customers",
    { timeout: 60_000 },
    async () => {
      await admin.getByText(`${CUSTOMERS} customers`, { exact: true }).waitFor();
      const marks = await admin.evaluate(() =>
        [...document.querySelectorAll<SVGCircleElement>("svg .places circle")].map((circle) => {
          const box = circle.getBoundingClientRect();
          const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
          return {
            id: circle.id,
            label: circle.getAttribute("aria-label") ?? "",
            x,
            y,
            onTop: document.elementFromPoint(x, y) === circle,
          };
        }),
      );
      const countOf = (label: string): number => Number(/^(\d+) customers /.exec(label)?.[1] ?? 1);
      // Every located customer is in one mark, and no two marks are within 4 px of each other.
      const located = /^World map: (\d+) customers at (\d+) places$/.exec(
        (await admin.locator("figure.map svg").getAttribute("aria-label")) ?? "",
      );
      expect(Number(located?.[1])).toBeGreaterThan(CUSTOMERS / 2);
      expect(Number(located?.[2])).toBe(marks.length);
      expect(marks.reduce((sum, mark) => sum + countOf(mark.label), 0)).toBe(Number(located?.[1]));
      for (const [index, a] of marks.entries())
        for (const b of marks.slice(index + 1)) expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeGreaterThan(4);

      const largest = marks.filter((mark) => mark.onTop).sort((a, b) => countOf(b.label) - countOf(a.label))[0]!;
      expect(largest.label).toMatch(/^\d+ customers in /);
      await admin.locator(`#${largest.id}`).click();
      const chosen = admin.getByRole("region", { name: "Chosen customer" });
      await expect.poll(() => chosen.locator("h2").textContent()).toBe(largest.label);
      expect(await chosen.getByRole("listitem").count()).toBe(countOf(largest.label));
    },
  );

  it(
    "fits a phone (390 × 844): nothing scrolls sideways, every action is on the screen, the map takes the width",
    { timeout: 60_000 },
    async () => {
      const phone = await newPage({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
      await phone.goto(`${service.url}/console/`);
      await phone.getByRole("form", { name: "Sign in" }).waitFor();
      expect(await sidewaysOverflow(phone)).toBeLessThanOrEqual(0);
      await signIn(phone, service.url, ADMIN.user, ADMIN.password);
      await phone.getByRole("link", { name: "partner-lab", exact: true }).waitFor();
      expect(await sidewaysOverflow(phone)).toBeLessThanOrEqual(0);
      expect(await withinWidth(phone, "role=link[name='Edit partner-lab']")).toBe(true);
      expect(await withinWidth(phone, "role=button[name='Delete partner-lab']")).toBe(true);
      expect(await withinWidth(phone, "role=link[name='partner-lab']")).toBe(true);
      expect(await controlsOffScreen(phone)).toEqual([]);
      expect(await badTimes(phone)).toEqual([]);
      expect(await unlabelledControls(phone)).toEqual([]);
      await screenshot(phone, "phone-connections");
      // The actions answer a tap: Delete asks first (cancelled here), Edit opens the form.
      await phone.getByRole("button", { name: "Delete partner-lab" }).click();
      await phone
        .getByRole("dialog", { name: "Delete the connection?" })
        .getByRole("button", { name: "Cancel" })
        .click();
      await phone.getByRole("link", { name: "Add connection" }).click();
      await phone.getByRole("heading", { name: "Add a connection" }).waitFor();
      expect(await sidewaysOverflow(phone)).toBeLessThanOrEqual(0);
      await phone.getByRole("link", { name: "Cancel" }).click();
      await phone.getByRole("link", { name: "Edit partner-lab" }).click();
      await phone.getByRole("heading", { name: "Edit partner-lab" }).waitFor();
      expect(await sidewaysOverflow(phone)).toBeLessThanOrEqual(0);

      await phone.getByRole("link", { name: "Cancel" }).click();
      await phone.getByTestId("valid").getByText("valid", { exact: true }).waitFor();
      await phone.getByRole("region", { name: "Audit trail" }).getByText("add", { exact: true }).waitFor();
      await phone.getByRole("region", { name: "Health" }).locator("tbody tr").first().waitFor();
      expect(await sidewaysOverflow(phone)).toBeLessThanOrEqual(0);
      expect(await controlsOffScreen(phone)).toEqual([]);
      expect(await badTimes(phone)).toEqual([]);
      // The health checks and the audit trail are stacked rows: each cell a line of its own, after its column's name.
      for (const region of ["Health", "Audit trail"]) {
        const cells = await phone
          .getByRole("region", { name: region })
          .locator("tbody tr")
          .first()
          .evaluate((row) =>
            [...row.querySelectorAll("td")]
              .filter((cell) => cell.textContent !== "")
              .map((cell) => ({
                display: getComputedStyle(cell).display,
                label: getComputedStyle(cell, "::before").content,
                width: cell.getBoundingClientRect().width,
              })),
          );
        expect(cells.length, region).toBeGreaterThan(2);
        for (const cell of cells) {
          expect(cell.display).toBe("block");
          expect(cell.label).toMatch(/^".+: "$/);
          expect(cell.width).toBeGreaterThan(PHONE.width / 2); // the row's width, not a column's
        }
      }
      await screenshot(phone, "phone-connection");

      await phone.getByRole("link", { name: "Customers" }).click();
      await phone.getByText(`${CUSTOMERS} customers`, { exact: true }).waitFor({ timeout: 20_000 });
      await phone.locator("svg path.land").waitFor();
      expect(await sidewaysOverflow(phone)).toBeLessThanOrEqual(0);
      // The map spans the screen but for the page's and the figure's padding (about 50 px).
      const map = await phone.locator("figure.map svg").boundingBox();
      expect(map!.width).toBeGreaterThan(PHONE.width - 60);
      expect(map!.x + map!.width).toBeLessThanOrEqual(PHONE.width);
      // The table's sort buttons are on the screen, and its rows are stacked (label: value).
      expect(await controlsOffScreen(phone)).toEqual([]);
      const firstRow = phone.locator(".grid-body [role=row]").first();
      expect((await firstRow.boundingBox())!.height).toBeGreaterThan(80);
      expect(
        await firstRow
          .locator("[role=gridcell]")
          .nth(2)
          .evaluate((cell) => getComputedStyle(cell, "::before").content),
      ).toBe('"City: "');
      expect(await unlabelledControls(phone)).toEqual([]);
      await screenshot(phone, "phone-customers");
      await phone.context().close();
    },
  );

  it("edits with a dry run first: the URL is filled in, the key never; saving sends If-Match", async () => {
    await admin.evaluate(() => (location.hash = "#/connections/partner-lab/edit"));
    const url = admin.getByLabel("Orchestrator URL");
    await expect.poll(() => url.inputValue()).toBe(simulator.url);
    expect(await admin.getByLabel("API key").inputValue()).toBe("");
    await url.fill(simulator.url.replace(/\/$/, ""));
    await admin.getByRole("button", { name: "Dry run" }).click();
    await admin.getByRole("status").getByText("Dry run successful").waitFor();
    expect((await service.call("GET", "/rest/plugin/sdwan/connections/partner-lab")).headers.get("etag")).toBe('"1"');
    await admin.getByRole("button", { name: "Save", exact: true }).click();
    await admin.getByRole("heading", { name: "partner-lab" }).waitFor();
    await admin.locator("dt:text('Version') + dd").getByText("2").waitFor();
    expect((await service.call("GET", "/rest/plugin/sdwan/connections")).json()).toContainEqual({
      alias: "partner-lab",
      orchestratorUrl: simulator.url.replace(/\/$/, ""),
    });
  });

  it("asks before saving without validation, and before deleting", async () => {
    await admin.evaluate(() => (location.hash = "#/add"));
    await admin.getByLabel("Alias").fill("wrong-key");
    await admin.getByLabel("Orchestrator URL").fill(simulator.url);
    await admin.getByLabel("API key").fill("not-a-key-the-orchestrator-knows");
    await admin.getByRole("button", { name: "Add", exact: true }).click();
    await admin.getByRole("alert").getByText("(422)").waitFor();
    // A refusal keeps the key too: saving without validation needs no new paste.
    expect(await admin.getByLabel("API key").inputValue()).toBe("not-a-key-the-orchestrator-knows");
    await admin.getByRole("button", { name: "Save without validation…" }).click();
    const dialog = admin.getByRole("dialog", { name: "Save without validation?" });
    await dialog.getByRole("button", { name: "Save without validation" }).click();
    await admin.getByRole("heading", { name: "wrong-key" }).waitFor();
    await admin.getByTestId("valid").getByText("not valid").waitFor();

    await admin.getByRole("button", { name: "Delete" }).click();
    await admin.getByRole("dialog", { name: "Delete the connection?" }).getByRole("button", { name: "Cancel" }).click();
    expect((await service.call("GET", "/rest/plugin/sdwan/connections/wrong-key")).status).toBe(200);
    await admin.getByRole("button", { name: "Delete" }).click();
    await admin.getByRole("dialog", { name: "Delete the connection?" }).getByRole("button", { name: "Delete" }).click();
    await admin.getByRole("heading", { name: "Connections" }).waitFor();
    expect((await service.call("GET", "/rest/plugin/sdwan/connections/wrong-key")).status).toBe(404);
  });

  it(
    "shows the days left before the key expires, coloured by urgency, in the list and on the connection page, on a desktop and a phone",
    { timeout: 60_000 },
    async () => {
      await admin.evaluate(() => (location.hash = "#/connections/partner-lab"));
      await admin.locator("dt:text('Key expires') + dd").getByText("unknown", { exact: true }).waitFor();
      // 5.5 days from now: 6 days left, as the service counts them (rounded up).
      const expiresAt = new Date(Date.now() + 5.5 * 86_400_000).toISOString();
      const put = await fetch(`${service.url}/rest/plugin/sdwan/connections/partner-lab?force=true`, {
        method: "PUT",
        headers: {
          authorization: `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString("base64")}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ apiKeyExpiresAt: expiresAt }),
      });
      expect(put.status).toBe(200);
      const phone = await newPage({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
      await phone.goto(`${service.url}/console/`);
      await signIn(phone, service.url, ADMIN.user, ADMIN.password);
      for (const page of [admin, phone]) {
        const width = page.viewportSize()?.width ?? 0;
        const expectBadge = async (badge: ReturnType<Page["getByTestId"]>) => {
          await badge.getByText("key: 6 days left", { exact: true }).waitFor();
          expect(await badge.getAttribute("class")).toContain("expiry-urgent");
          expect(await badge.getAttribute("title")).toBe(`The key expires at ${expiresAt} (declared)`);
          const box = await badge.boundingBox();
          expect(box !== null && box.x >= 0 && box.x + box.width <= width && box.y >= 0).toBe(true);
        };
        await page.evaluate(() => (location.hash = "#/"));
        await expectBadge(page.getByRole("row", { name: /partner-lab/ }).getByTestId("key-expiry"));
        expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
        await page.getByRole("link", { name: "partner-lab", exact: true }).click();
        await expectBadge(page.getByTestId("key-expiry"));
        expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
      }
      await screenshot(phone, "phone-key-expiry");
      await phone.context().close();
    },
  );

  it("shows the connections page for a fragment it cannot read (a malformed %-escape)", async () => {
    await admin.evaluate(() => (location.hash = "#/connections/%E0%A4%A/edit"));
    await admin.getByRole("heading", { name: "Connections" }).waitFor();
    await admin.getByRole("link", { name: "partner-lab", exact: true }).waitFor();
  });

  it("searches the connections list as one types (alias or URL)", async () => {
    await admin.evaluate(() => (location.hash = "#/"));
    const search = admin.getByLabel("Search connections");
    await search.fill("PARTNER");
    await admin
      .getByRole("status")
      .getByText(/^1 (of \d+ )?connections?$/)
      .waitFor();
    await admin.getByRole("link", { name: "partner-lab", exact: true }).waitFor();
    await search.fill(new URL(simulator.url).host);
    await admin.getByRole("link", { name: "partner-lab", exact: true }).waitFor();
    await search.fill("no-such-connection");
    await admin
      .getByRole("status")
      .getByText(/^No connection matches “no-such-connection”/)
      .waitFor();
    expect(await admin.getByRole("link", { name: "partner-lab", exact: true }).count()).toBe(0);
    await search.fill("");
    await admin.getByRole("link", { name: "partner-lab", exact: true }).waitFor();
  });

  it("shows times in one format, local with the zone, the ISO instant in a tooltip; an unknown alias in one box", async () => {
    await admin.evaluate(() => (location.hash = "#/connections/partner-lab"));
    await admin.getByRole("region", { name: "Audit trail" }).getByText("add", { exact: true }).waitFor();
    await admin.getByRole("region", { name: "Health" }).locator("tbody tr").first().waitFor();
    const times = await admin.evaluate(() =>
      [...document.querySelectorAll("time")].map((time) => ({ text: time.textContent ?? "", title: time.title })),
    );
    expect(times.length).toBeGreaterThan(3);
    const zone = await admin.evaluate(
      () =>
        new Intl.DateTimeFormat(undefined, { timeZoneName: "short" })
          .formatToParts(new Date())
          .find((part) => part.type === "timeZoneName")?.value,
    );
    for (const { text, title } of times) {
      expect(title).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d/);
      expect(text).toContain(zone);
    }
    expect(await badTimes(admin)).toEqual([]);
    expect(await admin.locator("td:text-matches('^\\d{4}-\\d\\d-\\d\\dT')").count()).toBe(0); // no raw ISO left in a cell

    await admin.evaluate(() => (location.hash = "#/connections/no-such-alias"));
    await admin.getByRole("alert").getByText("(404)").waitFor();
    await admin.waitForTimeout(500); // the slower of the two calls has answered too
    expect(await admin.getByRole("alert").count()).toBe(1);
    // An alias that names none (400): one box too, not one per section (four), and no event stream "connecting".
    await admin.evaluate(() => (location.hash = "#/connections/a%20b"));
    await admin.getByRole("alert").getByText("(400)").waitFor();
    await admin.waitForTimeout(500);
    expect(await admin.getByRole("alert").count()).toBe(1);
    expect(await admin.getByText("Connecting to the event stream").count()).toBe(0);
  });

  it("says the connection changed since it was opened (412), without HTTP's words", async () => {
    await admin.evaluate(() => (location.hash = "#/connections/partner-lab/edit"));
    const url = admin.getByLabel("Orchestrator URL");
    await expect.poll(() => url.inputValue()).not.toBe("");
    const current = await url.inputValue();
    const put = (orchestratorUrl: string) =>
      service.call("PUT", "/rest/plugin/sdwan/connections/partner-lab?force=true", { body: { orchestratorUrl } });
    expect((await put(`${current}/meanwhile`)).status).toBe(200); // someone else's change
    await url.fill(`${current}/mine`);
    await admin.getByRole("button", { name: "Save without validation…" }).click();
    await admin
      .getByRole("dialog", { name: "Save without validation?" })
      .getByRole("button", { name: "Save without validation" })
      .click();
    const alert = admin.getByRole("alert");
    await alert.getByText("The connection changed since you opened it").waitFor();
    expect(await alert.textContent()).not.toMatch(/ETag|If-Match/i);
    expect((await put(current)).status).toBe(200);
  });

  it("saves and dry-runs an edit left as it was (validated, nothing changed), and holds a URL typed back to If-Match", async () => {
    // A form of its own, not the one the test before left.
    await admin.evaluate(() => (location.hash = "#/connections/partner-lab"));
    await admin.getByRole("heading", { name: "partner-lab" }).waitFor();
    await admin.evaluate(() => (location.hash = "#/connections/partner-lab/edit"));
    const url = admin.getByLabel("Orchestrator URL");
    await expect.poll(() => url.inputValue()).not.toBe("");
    const version = async () =>
      (await service.call("GET", "/rest/plugin/sdwan/connections/partner-lab")).headers.get("etag");
    const before = await version();
    await admin.getByRole("button", { name: "Dry run" }).click();
    await admin.getByRole("status").getByText("Dry run successful").waitFor();
    await admin.getByRole("button", { name: "Save", exact: true }).click();
    await admin.getByRole("heading", { name: "partner-lab" }).waitFor();
    expect(await version()).toBe(before);
    // Someone else changes the URL; this form, opened before, has its URL typed back to the one it loaded.
    await admin.evaluate(() => (location.hash = "#/connections/partner-lab/edit"));
    await expect.poll(() => url.inputValue()).not.toBe("");
    const loaded = await url.inputValue();
    const put = (orchestratorUrl: string) =>
      service.call("PUT", "/rest/plugin/sdwan/connections/partner-lab?force=true", { body: { orchestratorUrl } });
    expect((await put(`${loaded}/meanwhile`)).status).toBe(200);
    await url.fill(`${loaded}/mine`);
    await url.fill(loaded);
    await admin.getByRole("button", { name: "Save", exact: true }).click();
    await admin.getByRole("alert").getByText("The connection changed since you opened it").waitFor();
    expect((await put(loaded)).status).toBe(200);
  });

  it("zooms and pans the map (buttons, wheel, drag) and spreads marks that overlap", { timeout: 60_000 }, async () => {
    await admin.evaluate(() => (location.hash = "#/connections/partner-lab/customers"));
    await admin.getByText(`${CUSTOMERS} customers`, { exact: true }).waitFor({ timeout: 20_000 });
    const placesAt = async () =>
      Number(/at (\d+) places$/.exec((await admin.locator("figure.map svg").getAttribute("aria-label")) ?? "")?.[1]);
    const marks = () =>
      admin.evaluate(() =>
        [...document.querySelectorAll<SVGCircleElement>("svg .places circle")].map((circle) => {
          const box = circle.getBoundingClientRect();
          return { x: box.x + box.width / 2, y: box.y + box.height / 2, r: box.width / 2 };
        }),
      );
    const overlapping = (all: Awaited<ReturnType<typeof marks>>) =>
      all.flatMap((a, i) => all.slice(i + 1).filter((b) => Math.hypot(a.x - b.x, a.y - b.y) < a.r + b.r - 0.5)).length;
    expect(overlapping(await marks())).toBe(0);
    const whole = await placesAt();
    const zoom = admin.getByTestId("zoom");

    await admin.getByRole("button", { name: "Zoom in" }).click();
    await admin.getByRole("button", { name: "Zoom in" }).click();
    await expect.poll(() => zoom.textContent()).toBe("4×");
    expect(await placesAt()).toBeGreaterThanOrEqual(whole); // closer, groups part
    expect(overlapping(await marks())).toBe(0);

    const box = (await admin.locator("figure.map svg").boundingBox())!;
    await admin.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await admin.mouse.wheel(0, -400);
    await expect.poll(async () => Number.parseFloat((await zoom.textContent()) ?? "0")).toBeGreaterThan(4);
    const land = admin.locator("figure.map svg > g").first();
    const before = await land.getAttribute("transform");
    await admin.mouse.down();
    await admin.mouse.move(box.x + box.width / 2 + 80, box.y + box.height / 2 + 30, { steps: 5 });
    await admin.mouse.up();
    expect(await land.getAttribute("transform")).not.toBe(before);
    await admin.getByRole("button", { name: "Whole world" }).click();
    await expect.poll(() => zoom.textContent()).toBe("");
    expect(await placesAt()).toBe(whole);
    // The chosen customer's panel names its fields for people.
    await admin.locator("svg .places circle").last().click();
    const chosen = admin.getByRole("region", { name: "Chosen customer" });
    const listed = chosen.getByRole("button");
    if ((await listed.count()) > 0) await listed.first().click();
    await chosen.locator("dt", { hasText: "Account number" }).waitFor();
    expect(await chosen.locator("dt").allTextContents()).not.toContain("enterpriseId");
  });

  it("zooms the map with a two-finger pinch on a phone, and pans it with one finger", { timeout: 60_000 }, async () => {
    const phone = await newPage({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await signIn(phone, service.url, ADMIN.user, ADMIN.password);
    await phone.evaluate(() => (location.hash = "#/connections/partner-lab/customers"));
    await phone.getByText(`${CUSTOMERS} customers`, { exact: true }).waitFor({ timeout: 20_000 });
    const map = phone.locator("figure.map svg");
    await map.scrollIntoViewIfNeeded();
    const box = (await map.boundingBox())!;
    const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
    // Playwright's touchscreen taps with one finger only: the fingers go through the DevTools protocol, as a phone's would.
    const cdp = await phone.context().newCDPSession(phone);
    const touch = (type: "touchStart" | "touchMove" | "touchEnd", points: readonly (readonly [number, number])[]) =>
      cdp.send("Input.dispatchTouchEvent", {
        type,
        touchPoints: points.map(([x, y], id) => ({ x, y, id, radiusX: 4, radiusY: 4, force: 1 })),
      });
    const fingers = (apart: number, dx = 0, dy = 0) =>
      [
        [cx - apart + dx, cy + dy],
        [cx + apart + dx, cy + dy],
      ] as const;
    await touch("touchStart", fingers(20));
    for (let apart = 24; apart <= 80; apart += 4) await touch("touchMove", fingers(apart));
    await touch("touchEnd", []);
    const zoom = phone.getByTestId("zoom");
    await expect.poll(async () => Number.parseFloat((await zoom.textContent()) || "1")).toBeGreaterThan(2);

    const land = phone.locator("figure.map svg > g").first();
    const before = await land.getAttribute("transform");
    await touch("touchStart", [[cx, cy]]);
    for (let step = 1; step <= 6; step++) await touch("touchMove", [[cx + step * 10, cy]]);
    await touch("touchEnd", []);
    await expect.poll(() => land.getAttribute("transform")).not.toBe(before);
    expect(await sidewaysOverflow(phone)).toBeLessThanOrEqual(0);
  });

  it("shows a viewer no control that writes", async () => {
    const viewer = await newPage();
    await signIn(viewer, service.url, VIEWER.user, VIEWER.password);
    await viewer.getByRole("link", { name: "partner-lab", exact: true }).waitFor();
    const writeControls = viewer
      .getByRole("button", { name: /Delete|Save|Add/ })
      .or(viewer.getByRole("link", { name: /Edit|Add/ }));
    expect(await writeControls.count()).toBe(0);
    await viewer.getByRole("link", { name: "partner-lab", exact: true }).click();
    await viewer.getByTestId("valid").getByText("valid", { exact: true }).waitFor();
    expect(await writeControls.count()).toBe(0);
    await viewer.getByText("Only admins read the audit trail.").waitFor();
    expect(await unlabelledControls(viewer)).toEqual([]);
    await viewer.evaluate(() => (location.hash = "#/add"));
    await viewer.getByRole("heading", { name: "Not allowed" }).waitFor();
    // Signing out forgets the credentials: the sign-in form again.
    await viewer.getByRole("button", { name: "Sign out" }).click();
    await viewer.getByRole("form", { name: "Sign in" }).waitFor();
    await viewer.context().close();
  });

  it("logged no error and broke no policy on any page", () => {
    expect(pageErrors.filter((text) => !/status of 4\d\d/.test(text))).toEqual([]);
  });
});
