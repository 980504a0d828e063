import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type ServiceProcess } from "@sdwan-connections/bench-kit";
import { startOrchestratorSimulator } from "@sdwan-connections/orchestrator-simulator";
import bcrypt from "bcryptjs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signIn, unlabelledControls } from "./browser.js";

const ADMIN = { user: "admin", password: "console-admin-password" };
const VIEWER = { user: "watcher", password: "watcher-password-1" };
const PARTNER_KEY = "generated-partner-key-1";
const BASE = "/rest/plugin/sdwan";

// SPEC §12: the connection page shows whether the service renews the key, its last renewal and failure, and a switch.
describe("the console's key renewal, in Debian's chromium, against the service", { timeout: 120_000 }, () => {
  let dir: string;
  let simulator: Awaited<ReturnType<typeof startOrchestratorSimulator>>;
  let service: ServiceProcess;
  let browser: Browser;
  const pageErrors: string[] = [];

  const newPage = async (): Promise<Page> => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on("console", (message) => message.type() === "error" && pageErrors.push(message.text()));
    page.on("pageerror", (error) => pageErrors.push(error.message));
    return page;
  };
  const storedRenewal = async (): Promise<unknown> =>
    (await service.call("GET", `${BASE}/connections/lab?stored=true`)).json<{ keyRenewal?: unknown }>().keyRenewal;
  const panel = (page: Page) => page.getByRole("region", { name: "Key renewal" });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "sdwan-console-renewal-"));
    const htpasswd = join(dir, "users.htpasswd");
    await writeFile(htpasswd, `${VIEWER.user}:${bcrypt.hashSync(VIEWER.password, 4)}\n`);
    simulator = await startOrchestratorSimulator({
      generate: { partners: 1, enterprisesPerPartner: 2 },
      host: "127.0.0.1",
    });
    service = await startServiceProcess({
      SDWAN_DATA_DIR: join(dir, "data"),
      SDWAN_ADMIN_USER: ADMIN.user,
      SDWAN_ADMIN_PASSWORD: ADMIN.password,
      SDWAN_HTPASSWD_FILE: htpasswd,
      SDWAN_VIEWERS: VIEWER.user,
    });
    const added = await service.call("POST", `${BASE}/connections`, {
      body: { alias: "lab", orchestratorUrl: simulator.url, apiKey: PARTNER_KEY },
    });
    expect(added.status, added.text).toBe(200);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await simulator?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    expect(pageErrors).toEqual([]);
  });

  it("shows renewal off by default with its history (admins), and the admin's switch sends keyRenewal at the version shown", async () => {
    const admin = await newPage();
    await signIn(admin, service.url, ADMIN.user, ADMIN.password);
    await admin.evaluate(() => (location.hash = "#/connections/lab"));
    await panel(admin).getByText(/^Off:/).waitFor();
    expect(await admin.getByTestId("key-renewal").textContent()).toBe("off");
    expect(await admin.getByTestId("key-renewed").textContent()).toBe("none recorded");
    expect(await admin.getByTestId("key-renewal-failed").textContent()).toBe("none recorded");
    expect(await unlabelledControls(admin)).toEqual([]);

    const put = admin.waitForRequest((request) => request.method() === "PUT");
    const answered = admin.waitForResponse((response) => response.request().method() === "PUT");
    await panel(admin).getByRole("button", { name: "Turn renewal on" }).click();
    const request = await put;
    expect(request.postDataJSON()).toEqual({ keyRenewal: "auto" });
    expect(request.headers()["if-match"]).toBe('"1"');
    expect((await answered).status()).toBe(200);
    // The page shows what the service then stores (read again, as after any change).
    const stored = await storedRenewal();
    await admin
      .getByTestId("key-renewal")
      .getByText(stored === "auto" ? "on (auto)" : "off")
      .waitFor();
    await admin.context().close();
  });

  it("shows a viewer the state, no switch and no history (the audit trail is the admins')", async () => {
    const viewer = await newPage();
    await signIn(viewer, service.url, VIEWER.user, VIEWER.password);
    await viewer.evaluate(() => (location.hash = "#/connections/lab"));
    await panel(viewer)
      .getByText(/^(On|Off):/)
      .waitFor();
    await panel(viewer)
      .getByText(/in the audit trail \(admins\)/)
      .waitFor();
    expect(await panel(viewer).getByRole("button").count()).toBe(0);
    await viewer.context().close();
  });
});
