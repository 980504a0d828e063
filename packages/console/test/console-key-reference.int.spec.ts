import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signIn, unlabelledControls } from "./browser.js";

const ADMIN = { user: "admin", password: "console-admin-password" };
const PARTNER_KEY = "generated-partner-key-1";
const BASE = "/rest/plugin/sdwan";
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

// SPEC §12: the connection page says where a key kept elsewhere lives, never the key; an admin's form can set one.
describe("the console's keys kept elsewhere, in Debian's chromium, against the service", { timeout: 120_000 }, () => {
  let dir: string;
  let simulator: Awaited<ReturnType<typeof startOrchestratorSimulator>>;
  let service: ServiceProcess;
  let browser: Browser;
  const pageErrors: string[] = [];

  const newPage = async (viewport: typeof DESKTOP): Promise<Page> => {
    const page = await (await browser.newContext({ viewport })).newPage();
    page.on("console", (message) => message.type() === "error" && pageErrors.push(message.text()));
    page.on("pageerror", (error) => pageErrors.push(error.message));
    return page;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sdwan-console-reference-"));
    const keys = join(dir, "keys");
    await mkdir(keys);
    for (const name of ["lab", "lab-rotated"]) await writeFile(join(keys, name), `${PARTNER_KEY}\n`);
    simulator = await startOrchestratorSimulator({
      generate: { partners: 1, enterprisesPerPartner: 2 },
      host: "127.0.0.1",
    });
    service = await startServiceProcess({
      SDWAN_DATA_DIR: join(dir, "data"),
      SDWAN_ADMIN_USER: ADMIN.user,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_APIKEY_DIR: keys,
    });
    for (const body of [
      { alias: "lab", orchestratorUrl: simulator.url, apiKeyRef: "file:lab" },
      { alias: "kept", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
    ]) {
      const added = await service.call("POST", `${BASE}/connections`, { body });
      expect(added.status, added.text).toBe(200);
    }
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await simulator?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    expect(pageErrors).toEqual([]);
  });

  for (const [name, viewport] of [
    ["a desktop", DESKTOP],
    ["a phone", PHONE],
  ] as const) {
    it(`on ${name}: the page says where each key lives, never the key itself`, async () => {
      const page = await newPage(viewport);
      await signIn(page, service.url, ADMIN.user, ADMIN.password);
      await page.evaluate(() => (location.hash = "#/connections/lab"));
      await page.getByTestId("key-place").getByText("file:lab").waitFor();
      await page.evaluate(() => (location.hash = "#/connections/kept"));
      await page.getByTestId("key-place").getByText("stored (sealed in the store)").waitFor();
      expect(await page.content()).not.toContain(PARTNER_KEY);
      expect(await unlabelledControls(page)).toEqual([]);
      await page.context().close();
    });
  }

  it("an admin's edit form shows the reference and saves another in its place", async () => {
    const page = await newPage(DESKTOP);
    await signIn(page, service.url, ADMIN.user, ADMIN.password);
    await page.evaluate(() => (location.hash = "#/connections/lab/edit"));
    const field = page.getByLabel("Or: where the key is kept");
    await field.waitFor();
    expect(await field.inputValue()).toBe("file:lab");
    expect(await unlabelledControls(page)).toEqual([]);
    const put = page.waitForRequest((request) => request.method() === "PUT");
    await field.fill("file:lab-rotated");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    expect((await put).postDataJSON()).toEqual({ apiKeyRef: "file:lab-rotated" });
    await page.getByTestId("key-place").getByText("file:lab-rotated").waitFor();
    const stored = await service.call("GET", `${BASE}/connections/lab?stored=true`);
    expect(stored.json<{ apiKeyRef?: string }>().apiKeyRef).toBe("file:lab-rotated");
    expect(stored.text).not.toContain(PARTNER_KEY);
    await page.context().close();
  });
});
