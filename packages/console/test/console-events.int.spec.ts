import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, screenshots, signIn, unlabelledControls } from "./browser.js";

const ADMIN = { user: "admin", password: "console-admin-password" };
const PARTNER_KEY = "generated-partner-key-1";
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const BASE = "/rest/plugin/sdwan";
/** "Within a couple of seconds" of the REST answer: the event is written, streamed, and the page redrawn. */
const LIVE = { timeout: 3_000 };

describe("the console follows events live (GET /events), in Debian's chromium", { timeout: 120_000 }, () => {
  let dir: string;
  let simulator: Awaited<ReturnType<typeof startOrchestratorSimulator>>;
  let service: ServiceProcess;
  let env: Record<string, string>;
  let browser: Browser;
  let screenshot: Awaited<ReturnType<typeof screenshots>>;
  const pageErrors: string[] = [];

  const newPage = async (options: Parameters<Browser["newContext"]>[0]): Promise<Page> => {
    const page = await (await browser.newContext(options)).newPage();
    page.on("console", (message) => message.type() === "error" && pageErrors.push(message.text()));
    page.on("pageerror", (error) => pageErrors.push(error.message));
    return page;
  };
  /** Another client of the API: the admin over REST, with Basic credentials. */
  const rest = async (method: string, path: string, body?: unknown) => {
    const answer = await service.call(method, `${BASE}${path}`, body === undefined ? {} : { body });
    expect(answer.status, answer.text).toBeLessThan(300);
    return answer;
  };
  const openConnection = async (page: Page, alias: string): Promise<void> => {
    await page.evaluate((hash) => (location.hash = hash), `#/connections/${alias}`);
    await page.getByRole("heading", { name: alias, exact: true }).waitFor();
    // Following: what is written from now on reaches the page.
    await page
      .getByRole("region", { name: "Recent events" })
      .getByText(/^Live:/)
      .waitFor({ timeout: 40_000 });
  };
  const recentEvents = (page: Page) => page.getByRole("region", { name: "Recent events" }).locator("tbody tr");

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sdwan-console-events-"));
    simulator = await startOrchestratorSimulator({
      generate: { partners: 1, enterprisesPerPartner: 3 },
      host: "127.0.0.1",
    });
    env = {
      SDWAN_DATA_DIR: join(dir, "data"),
      SDWAN_ADMIN_USER: ADMIN.user,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      // One master key across the restart below, so the console's session token stays valid.
      SDWAN_MASTER_KEY: randomBytes(32).toString("base64"),
      SDWAN_HEALTH_INTERVAL_S: "5",
    };
    service = await startServiceProcess(env);
    browser = await launchChromium();
    screenshot = await screenshots(join(dir, "screenshots"));
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await simulator?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    // The reconnection attempts while the service restarts: 503 while it drains, then refused until it listens.
    expect(pageErrors.filter((text) => !/status of (4\d\d|503)|ERR_CONNECTION_REFUSED/.test(text))).toEqual([]);
  });

  it("shows a change another client makes over REST, and a health change flips the badge, without a reload", async () => {
    await rest("POST", "/connections", { alias: "lab", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY });
    const page = await newPage({ viewport: DESKTOP });
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    await openConnection(page, "lab");
    const health = page.getByRole("region", { name: "Health" }).locator(".badge").first();
    await expect.poll(() => health.textContent()).toBe("valid"); // the page's own validation

    // Another client stores a key the orchestrator refuses (forced): the change is listed, newest first.
    await rest("PUT", "/connections/lab?force=true", { apiKey: "a-key-the-orchestrator-refuses" });
    await recentEvents(page)
      .filter({ hasText: "connection.updated" })
      .filter({ hasText: "by admin (forced)" })
      .waitFor(LIVE);
    // Its validation finds the connection invalid: the health badge flips and the change is listed.
    await rest("GET", "/connections/lab");
    await page.getByRole("region", { name: "Health" }).locator(".badge.invalid").waitFor(LIVE);
    await recentEvents(page)
      .first()
      .filter({ hasText: "connection.health.changed" })
      .filter({ hasText: "valid → invalid" })
      .waitFor(LIVE);
    // The audit trail (admins) is read again too.
    await page.getByRole("region", { name: "Audit trail" }).getByText("health-change").first().waitFor(LIVE);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(await page.content()).not.toContain(PARTNER_KEY);
    expect(await unlabelledControls(page)).toEqual([]);
    await screenshot(page, "connection-events");
    await page.context().close();
  });

  it("flips the key-expiry badge when the key.expired event comes, without a reload", async () => {
    const expiresAt = new Date(Date.now() + 8_000).toISOString();
    await rest("POST", "/connections", {
      alias: "expiring",
      orchestratorUrl: simulator.url,
      apiKey: PARTNER_KEY,
      apiKeyExpiresAt: expiresAt,
    });
    const page = await newPage({ viewport: DESKTOP });
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await openConnection(page, "expiring");
    expect(await page.getByTestId("key-expiry").textContent()).toBe("key: 1 day left");
    // The background health round (every 5 s) warns once the key has expired.
    await recentEvents(page).filter({ hasText: "connection.key.expired" }).waitFor({ timeout: 20_000 });
    expect(await page.getByTestId("key-expiry").textContent()).toBe("key expired");
    await page.context().close();
  });

  it("on a phone: the connections list's health badge and the connection page follow live", async () => {
    await rest("POST", "/connections?force=true", {
      alias: "phone-lab",
      orchestratorUrl: simulator.url,
      apiKey: "refused",
    });
    const phone = await newPage({ viewport: PHONE, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    // The list shows no stream status: its stream's answer (headers sent) says it follows.
    const following = phone.waitForResponse((response) => response.url().includes("/events?types="));
    await signIn(phone, service.url, ADMIN.user, ADMIN.password);
    const row = phone.getByRole("row", { name: /phone-lab/ });
    await row.waitFor();
    expect(await row.getByText("valid", { exact: true }).count()).toBe(0); // unknown, or invalid once checked
    await following;
    await rest("PUT", "/connections/phone-lab", { apiKey: PARTNER_KEY });
    await rest("GET", "/connections/phone-lab"); // its validation records the health: valid
    await row.getByText("valid", { exact: true }).waitFor(LIVE);

    await openConnection(phone, "phone-lab");
    await rest("PUT", "/connections/phone-lab?force=true", { apiKey: "refused" });
    await rest("GET", "/connections/phone-lab");
    await phone.getByRole("region", { name: "Health" }).locator(".badge.invalid").waitFor(LIVE);
    await recentEvents(phone).filter({ hasText: "valid → invalid" }).waitFor(LIVE);
    expect(await phone.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(phone, "phone-connection-events");
    await phone.context().close();
  });

  it("resumes the stream after the service restarts, with Last-Event-ID, without a reload", async () => {
    const page = await newPage({ viewport: DESKTOP });
    const resumedWith: string[] = [];
    page.on("request", (request) => {
      const id = request.headers()["last-event-id"];
      if (request.url().includes("/events?") && id !== undefined) resumedWith.push(id);
    });
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    await openConnection(page, "lab");
    await rest("PUT", "/connections/lab?force=true", { orchestratorUrl: `${simulator.url}/` });
    await recentEvents(page).filter({ hasText: "connection.updated" }).first().waitFor(LIVE);
    const audit = await rest("GET", "/audit?alias=lab&limit=50");
    const labIds = audit.json<{ entries: { id: string }[] }>().entries.map((entry) => entry.id);

    // The same service on the same port, after a stop: the page says it reconnects, then gets what is written.
    const port = new URL(service.url).port;
    await service.stop();
    await page
      .getByRole("region", { name: "Recent events" })
      .getByText(/reconnecting/)
      .waitFor();
    service = await startServiceProcess({ ...env, SDWAN_PORT: port });
    await rest("PUT", "/connections/lab?force=true", { apiKey: PARTNER_KEY });
    await expect
      .poll(() => recentEvents(page).filter({ hasText: "connection.updated" }).count(), { timeout: 40_000 })
      .toBe(2);
    await page
      .getByRole("region", { name: "Recent events" })
      .getByText(/^Live:/)
      .waitFor({ timeout: 40_000 });
    // The reconnection named the last event the page had: one of lab's.
    expect(resumedWith.length).toBeGreaterThan(0);
    for (const id of resumedWith) expect(labIds).toContain(id);
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await page.context().close();
  });
});
